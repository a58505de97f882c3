/// The eight data-mask patterns (ISO/IEC 18004 §7.8.2, Table 10); `x` is the column, `y` the row.
/// The encoder picks the one with the lowest penalty; a caller may force one (`QRCode(bytes:...)`).
public enum QRMask: Int, Sendable, CaseIterable {
    case pattern0, pattern1, pattern2, pattern3, pattern4, pattern5, pattern6, pattern7

    /// True when the mask flips the module at (x, y).
    func inverts(x: Int, y: Int) -> Bool {
        switch self {
        case .pattern0: return (x + y) % 2 == 0
        case .pattern1: return y % 2 == 0
        case .pattern2: return x % 3 == 0
        case .pattern3: return (x + y) % 3 == 0
        case .pattern4: return (y / 2 + x / 3) % 2 == 0
        case .pattern5: return (x * y) % 2 + (x * y) % 3 == 0
        case .pattern6: return ((x * y) % 2 + (x * y) % 3) % 2 == 0
        case .pattern7: return ((x + y) % 2 + (x * y) % 3) % 2 == 0
        }
    }
}
