import LatchkeyHTTP

/// RFC 8707 resource indicators: the protected resources a token is asked for, sent as `resource`
/// on the authorization (or pushed), device authorization, CIBA and token requests.
package enum ResourceIndicator {
    /// True when `text` can be a `resource` value (RFC 8707 §2): an absolute URI (RFC 3986 §4.3:
    /// a scheme, `:`, and more) without a fragment, in printable ASCII without spaces. A query is
    /// allowed (the RFC only discourages it).
    package static func isValid(_ text: String) -> Bool {
        let scalars = Array(text.unicodeScalars)
        guard CharacterClass.isVisibleASCII(text), !scalars.contains("#") else { return false }
        guard let colon = scalars.firstIndex(of: ":"), colon > 0, colon < scalars.count - 1 else { return false }
        guard Self.isLetter(scalars[0]) else { return false }
        return scalars[1..<colon].allSatisfy { Self.isLetter($0) || ("0"..."9").contains($0) || $0 == "+" || $0 == "-" || $0 == "." }
    }

    /// The `resource` form pairs for `resources`, in order.
    package static func parameters(_ resources: [String]) -> [(String, String)] {
        resources.map { ("resource", $0) }
    }

    private static func isLetter(_ s: Unicode.Scalar) -> Bool { ("a"..."z").contains(s) || ("A"..."Z").contains(s) }
}
