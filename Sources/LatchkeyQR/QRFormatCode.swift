/// The BCH-protected format and version information words (ISO/IEC 18004 §7.9, §7.10, Annex C, D).
enum QRFormatCode {
    /// The 15-bit format word for `level` and mask: 5 data bits, 10 BCH(15,5) bits with generator
    /// 0x537, XOR 0x5412 so that the word is never all zero.
    static func formatBits(level: QRErrorCorrectionLevel, mask: QRMask) -> Int {
        let data = level.formatBits << 3 | mask.rawValue
        return (data << 10 | bchRemainder(data << 10, generator: 0x537, degree: 10)) ^ 0x5412
    }

    /// The 18-bit version word: 6 version bits, 12 BCH(18,6) bits with generator 0x1F25.
    static func versionBits(_ version: Int) -> Int {
        version << 12 | bchRemainder(version << 12, generator: 0x1F25, degree: 12)
    }

    /// The remainder of `value` divided by `generator` (polynomials over GF(2)).
    static func bchRemainder(_ value: Int, generator: Int, degree: Int) -> Int {
        var remainder = value
        var shift = highestBit(remainder)
        while shift >= degree {
            remainder ^= generator << (shift - degree)
            shift = highestBit(remainder)
        }
        return remainder
    }

    private static func highestBit(_ value: Int) -> Int {
        value == 0 ? -1 : (Int.bitWidth - 1 - value.leadingZeroBitCount)
    }
}
