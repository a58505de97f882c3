/// A sequence of bits, most significant first, as the QR data stream is built (ISO/IEC 18004 §7.4).
struct QRBitBuffer: Sendable {
    /// The bits, one per element (0 or 1).
    private(set) var bits: [UInt8] = []

    /// Number of bits so far.
    var count: Int { bits.count }

    /// Appends the low `length` bits of `value`, most significant first.
    mutating func append(_ value: Int, length: Int) {
        precondition(length >= 0 && length <= 31 && value >> length == 0, "value does not fit in \(length) bits")
        for i in stride(from: length - 1, through: 0, by: -1) {
            bits.append(UInt8((value >> i) & 1))
        }
    }

    /// The bits packed into bytes (the count must be a multiple of 8).
    var bytes: [UInt8] {
        precondition(bits.count % 8 == 0, "bit stream not byte-aligned")
        var out = [UInt8](repeating: 0, count: bits.count / 8)
        for (i, bit) in bits.enumerated() where bit != 0 {
            out[i >> 3] |= 0x80 >> UInt8(i & 7)
        }
        return out
    }
}
