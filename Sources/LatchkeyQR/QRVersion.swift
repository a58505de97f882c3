/// A QR symbol version (1…40): its size, where its alignment patterns go, and how many codewords
/// it holds (ISO/IEC 18004 §6.4, Annex E). A `QRCode` reports the version it chose.
public struct QRVersion: Sendable, Equatable {
    /// 1…40.
    public let number: Int

    /// Makes a version; `number` must be in 1…40.
    init(_ number: Int) {
        precondition((1...40).contains(number), "QR version out of range")
        self.number = number
    }

    /// Modules per side: 17 + 4·version.
    public var size: Int { 17 + 4 * number }

    /// Row/column centres of the alignment patterns (Annex E): 6, then evenly spaced up to
    /// size − 7. The spacing rounds to an even number; version 32 is the table's one exception.
    var alignmentCentres: [Int] {
        guard number >= 2 else { return [] }
        let count = number / 7 + 2
        let step = number == 32 ? 26 : (number * 4 + count * 2 + 1) / (count * 2 - 2) * 2
        var centres = [6]
        var position = size - 7
        for _ in 0..<(count - 1) {
            centres.insert(position, at: 1)
            position -= step
        }
        return centres
    }

    /// Modules available for data and error-correction bits once every function pattern, format
    /// and version area is taken out.
    var rawDataModules: Int {
        var modules = (16 * number + 128) * number + 64
        if number >= 2 {
            let count = number / 7 + 2
            modules -= (25 * count - 10) * count - 55
            if number >= 7 { modules -= 36 }
        }
        return modules
    }

    /// Total codewords (data + error correction); leftover remainder bits are not codewords.
    var totalCodewords: Int { rawDataModules / 8 }

    /// Data codewords available at `level`.
    func dataCodewords(_ level: QRErrorCorrectionLevel) -> Int {
        totalCodewords - level.codewordsPerBlock[number - 1] * level.blockCounts[number - 1]
    }

    /// Bits of the byte-mode character count indicator (§7.4.1, Table 3).
    var byteCountBits: Int { number <= 9 ? 8 : 16 }

    /// Bytes of byte-mode payload that fit at `level`: 4 mode bits and the count come first.
    public func byteCapacity(_ level: QRErrorCorrectionLevel) -> Int {
        (dataCodewords(level) * 8 - 4 - byteCountBits) / 8
    }
}
