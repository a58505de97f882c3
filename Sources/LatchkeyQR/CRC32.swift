/// CRC-32 as PNG and zlib's gzip use it (ISO 3309, reflected polynomial 0xEDB88320, initial and
/// final XOR 0xFFFFFFFF): the checksum over each PNG chunk's type and data (PNG §5.5).
enum CRC32 {
    /// The byte-at-a-time table, built once.
    private static let table: [UInt32] = (0..<256).map { n in
        var c = UInt32(n)
        for _ in 0..<8 { c = c & 1 != 0 ? 0xEDB8_8320 ^ (c >> 1) : c >> 1 }
        return c
    }

    /// The CRC of `bytes`.
    static func checksum<S: Sequence<UInt8>>(_ bytes: S) -> UInt32 {
        var crc: UInt32 = 0xFFFF_FFFF
        for byte in bytes { crc = table[Int((crc ^ UInt32(byte)) & 0xFF)] ^ (crc >> 8) }
        return crc ^ 0xFFFF_FFFF
    }
}
