/// The error-correction level of a QR symbol (ISO/IEC 18004 §7.5.1). Latchkey uses M by default
/// (15 % recovery, good for phone cameras on a terminal) and L when that keeps the symbol smaller.
enum QRErrorCorrectionLevel: Int, Sendable, CaseIterable {
    /// About 7 % of codewords can be restored.
    case low
    /// About 15 % of codewords can be restored.
    case medium

    /// The two format-information bits (§7.9.1: L = 01, M = 00).
    var formatBits: Int {
        switch self {
        case .low: return 1
        case .medium: return 0
        }
    }

    /// Error-correction codewords per block, versions 1…40 (ISO/IEC 18004 Table 9).
    var codewordsPerBlock: [Int] {
        switch self {
        case .low:
            return [7, 10, 15, 20, 26, 18, 20, 24, 30, 18, 20, 24, 26, 30, 22, 24, 28, 30, 28, 28,
                    28, 28, 30, 30, 26, 28, 30, 30, 30, 30, 30, 30, 30, 30, 30, 30, 30, 30, 30, 30]
        case .medium:
            return [10, 16, 26, 18, 24, 16, 18, 22, 22, 26, 30, 22, 22, 24, 24, 28, 28, 26, 26, 26,
                    26, 28, 28, 28, 28, 28, 28, 28, 28, 28, 28, 28, 28, 28, 28, 28, 28, 28, 28, 28]
        }
    }

    /// Number of error-correction blocks, versions 1…40 (ISO/IEC 18004 Table 9).
    var blockCounts: [Int] {
        switch self {
        case .low:
            return [1, 1, 1, 1, 1, 2, 2, 2, 2, 4, 4, 4, 4, 4, 6, 6, 6, 6, 7, 8,
                    8, 9, 9, 10, 12, 12, 12, 13, 14, 15, 16, 17, 18, 19, 19, 20, 21, 22, 24, 25]
        case .medium:
            return [1, 1, 1, 2, 2, 4, 4, 4, 5, 5, 5, 8, 9, 9, 10, 10, 11, 13, 14, 16,
                    17, 17, 18, 20, 21, 23, 25, 26, 28, 29, 31, 33, 35, 37, 38, 40, 43, 45, 47, 49]
        }
    }
}
