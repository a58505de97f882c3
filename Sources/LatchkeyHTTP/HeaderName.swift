/// Header names (RFC 9110 §5.1): compared case-insensitively in ASCII, and made of token
/// characters (§5.6.2), as are methods and auth schemes.
package enum HeaderName {
    /// True when `a` and `b` name the same header.
    package static func equal(_ a: String, _ b: String) -> Bool { ASCIICase.equal(a, b) }

    /// A `tchar`: ALPHA, DIGIT or one of ``!#$%&'*+-.^_`|~``.
    package static func isTokenCharacter(_ c: UInt8) -> Bool {
        switch c {
        case 48...57, 65...90, 97...122: return true
        case 33, 35, 36, 37, 38, 39, 42, 43, 45, 46, 94, 95, 96, 124, 126: return true
        default: return false
        }
    }

    /// A non-empty `token` (a header name, a method).
    package static func isToken(_ text: String) -> Bool {
        !text.isEmpty && text.utf8.allSatisfy(isTokenCharacter)
    }
}
