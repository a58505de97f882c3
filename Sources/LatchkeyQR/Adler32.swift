/// Adler-32 (RFC 1950 §8.2): the checksum a zlib stream ends with, over the uncompressed data.
enum Adler32 {
    /// The checksum of `bytes`.
    static func checksum(_ bytes: [UInt8]) -> UInt32 {
        var a: UInt32 = 1, b: UInt32 = 0
        // 5552 is the largest run whose sums cannot overflow 32 bits before the modulo (RFC 1950).
        var start = 0
        while start < bytes.count {
            let end = min(start + 5552, bytes.count)
            for byte in bytes[start..<end] {
                a += UInt32(byte)
                b += a
            }
            a %= 65521
            b %= 65521
            start = end
        }
        return b << 16 | a
    }
}
