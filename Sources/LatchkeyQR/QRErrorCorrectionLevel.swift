/// The error-correction level of a QR symbol (ISO/IEC 18004 §7.5.1): how much of the symbol may be
/// lost or misread and still decode. Higher levels need a larger symbol for the same payload.
/// Latchkey's own prompt uses M (good for phone cameras on a terminal), or L when that keeps the
/// symbol smaller; a printed or partly covered code may want Q or H.
public enum QRErrorCorrectionLevel: Int, Sendable, CaseIterable {
    /// About 7 % of codewords can be restored.
    case low
    /// About 15 % of codewords can be restored.
    case medium
    /// About 25 % of codewords can be restored.
    case quartile
    /// About 30 % of codewords can be restored.
    case high

    /// The two format-information bits (§7.9.1: L = 01, M = 00, Q = 11, H = 10).
    var formatBits: Int {
        switch self {
        case .low: return 1
        case .medium: return 0
        case .quartile: return 3
        case .high: return 2
        }
    }

    /// Error-correction codewords per block, versions 1…40 (ISO/IEC 18004 Table 9).
    var codewordsPerBlock: [Int] {
        switch self {
        case .low:
            return [
                7, 10, 15, 20, 26, 18, 20, 24, 30, 18, 20, 24, 26, 30, 22, 24, 28, 30, 28, 28,
                28, 28, 30, 30, 26, 28, 30, 30, 30, 30, 30, 30, 30, 30, 30, 30, 30, 30, 30, 30
            ]
        case .medium:
            return [
                10, 16, 26, 18, 24, 16, 18, 22, 22, 26, 30, 22, 22, 24, 24, 28, 28, 26, 26, 26,
                26, 28, 28, 28, 28, 28, 28, 28, 28, 28, 28, 28, 28, 28, 28, 28, 28, 28, 28, 28
            ]
        case .quartile:
            return [
                13, 22, 18, 26, 18, 24, 18, 22, 20, 24, 28, 26, 24, 20, 30, 24, 28, 28, 26, 30,
                28, 30, 30, 30, 30, 28, 30, 30, 30, 30, 30, 30, 30, 30, 30, 30, 30, 30, 30, 30
            ]
        case .high:
            return [
                17, 28, 22, 16, 22, 28, 26, 26, 24, 28, 24, 28, 22, 24, 24, 30, 28, 28, 26, 28,
                30, 24, 30, 30, 30, 30, 30, 30, 30, 30, 30, 30, 30, 30, 30, 30, 30, 30, 30, 30
            ]
        }
    }

    /// Number of error-correction blocks, versions 1…40 (ISO/IEC 18004 Table 9).
    var blockCounts: [Int] {
        switch self {
        case .low:
            return [
                1, 1, 1, 1, 1, 2, 2, 2, 2, 4, 4, 4, 4, 4, 6, 6, 6, 6, 7, 8,
                8, 9, 9, 10, 12, 12, 12, 13, 14, 15, 16, 17, 18, 19, 19, 20, 21, 22, 24, 25
            ]
        case .medium:
            return [
                1, 1, 1, 2, 2, 4, 4, 4, 5, 5, 5, 8, 9, 9, 10, 10, 11, 13, 14, 16,
                17, 17, 18, 20, 21, 23, 25, 26, 28, 29, 31, 33, 35, 37, 38, 40, 43, 45, 47, 49
            ]
        case .quartile:
            return [
                1, 1, 2, 2, 4, 4, 6, 6, 8, 8, 8, 10, 12, 16, 12, 17, 16, 18, 21, 20,
                23, 23, 25, 27, 29, 34, 34, 35, 38, 40, 43, 45, 48, 51, 53, 56, 59, 62, 65, 68
            ]
        case .high:
            return [
                1, 1, 2, 4, 4, 4, 5, 6, 8, 8, 11, 11, 16, 16, 18, 16, 19, 21, 25, 25,
                25, 34, 30, 32, 35, 37, 40, 42, 45, 48, 51, 54, 57, 60, 63, 66, 70, 74, 77, 81
            ]
        }
    }
}
