/// ASCII-only case folding, for protocol tokens (header names, auth schemes and params, hosts and
/// schemes): locale-free, and unchanged outside A–Z.
package enum ASCIICase {
    /// `c` with A–Z folded to a–z.
    package static func lower(_ c: UInt8) -> UInt8 { c >= 65 && c <= 90 ? c + 32 : c }

    /// `s` with A–Z folded to a–z.
    package static func lowercased(_ s: String) -> String { String(decoding: s.utf8.map(lower), as: UTF8.self) }

    /// True when `a` and `b` are equal ignoring ASCII case.
    package static func equal(_ a: String, _ b: String) -> Bool {
        a.utf8.count == b.utf8.count && zip(a.utf8, b.utf8).allSatisfy { lower($0) == lower($1) }
    }
}
