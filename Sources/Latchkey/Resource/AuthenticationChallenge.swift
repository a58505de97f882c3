import LatchkeyHTTP

/// One challenge of a `WWW-Authenticate` header (RFC 9110 §11.6.1, RFC 6750 §3): the scheme and
/// its auth-params. Parsed strictly enough to read `error` from a resource server's 401 and lenient
/// about what it does not need; hostile input gives nil or fewer params, never a crash.
package struct AuthenticationChallenge: Sendable, Equatable {
    /// The scheme, e.g. `Bearer` or `DPoP` (compared case-insensitively by `isScheme`).
    package let scheme: String
    /// The auth-params in order, names lowercased, values unquoted.
    package let parameters: [(name: String, value: String)]

    package static func == (a: Self, b: Self) -> Bool {
        a.scheme == b.scheme && a.parameters.elementsEqual(b.parameters) { $0.name == $1.name && $0.value == $1.value }
    }

    /// True when the scheme is `name` (ASCII case-insensitive).
    package func isScheme(_ name: String) -> Bool { HeaderName.equal(scheme, name) }

    /// The value of param `name` (lowercase), if present.
    package func parameter(_ name: String) -> String? { parameters.first { $0.name == name }?.value }

    /// Every challenge in `header`. A header longer than 8 KiB is not parsed (nil).
    package static func parse(_ header: String) -> [AuthenticationChallenge]? {
        let bytes = Array(header.utf8)
        guard bytes.count <= 8192 else { return nil }
        var scanner = ChallengeScanner(bytes: bytes)
        return scanner.challenges()
    }

    /// True when `response`'s challenges include `scheme` with `error="code"` (RFC 6750 §3.1).
    package static func hasError(_ code: String, scheme: String, in header: String?) -> Bool {
        guard let header, let challenges = parse(header) else { return false }
        return challenges.contains { $0.isScheme(scheme) && $0.parameter("error") == code }
    }
}

/// The byte scanner behind `AuthenticationChallenge.parse`.
struct ChallengeScanner {
    let bytes: [UInt8]
    var i = 0

    init(bytes: [UInt8]) { self.bytes = bytes }

    mutating func challenges() -> [AuthenticationChallenge]? {
        var result: [AuthenticationChallenge] = []
        var current: (scheme: String, params: [(name: String, value: String)])?
        // Right after a scheme (no comma yet) a bare token is a token68 (RFC 9110 §11.3), not a scheme.
        var afterScheme = false
        while true {
            let start = i
            skip { $0 == 32 || $0 == 9 || $0 == 44 }
            if bytes[start..<i].contains(44) { afterScheme = false }
            guard i < bytes.count else { break }
            guard let first = token() else { return nil }
            var equals = 0
            while i + equals < bytes.count, bytes[i + equals] == 61 { equals += 1 }
            let next = i + equals < bytes.count ? bytes[i + equals] : 44
            if equals == 1, next == 34 || Self.isTokenByte(next) || next == 32 {
                // `name=value`: a param of the current challenge; its name is a token (no `/`).
                guard Self.isToken(first) else { return nil }
                i += 1
                skip { $0 == 32 || $0 == 9 }
                guard let value = quotedOrToken() else { return nil }
                if current != nil { current!.params.append((ASCIICase.lowercased(first), value)) }
                afterScheme = false
            } else if afterScheme || equals > 0 {
                // A token68 and its `=` padding: it carries nothing read here.
                i += equals
                afterScheme = false
            } else {
                guard Self.isToken(first) else { return nil }
                if let c = current { result.append(AuthenticationChallenge(scheme: c.scheme, parameters: c.params)) }
                current = (first, [])
                afterScheme = true
            }
        }
        if let c = current { result.append(AuthenticationChallenge(scheme: c.scheme, parameters: c.params)) }
        return result
    }

    private mutating func skip(_ predicate: (UInt8) -> Bool) {
        while i < bytes.count, predicate(bytes[i]) { i += 1 }
    }

    /// RFC 9110 token characters, plus `/` for token68.
    private static func isTokenByte(_ c: UInt8) -> Bool { c == UInt8(ascii: "/") || HeaderName.isTokenCharacter(c) }

    /// RFC 9110 §5.6.2 `token`, as a scheme and a parameter name must be.
    private static func isToken(_ s: String) -> Bool { s.utf8.allSatisfy(HeaderName.isTokenCharacter) }

    /// RFC 9110 §5.6.4: qdtext and quoted-pair allow HTAB, SP, VCHAR and obs-text, no other control.
    private static func isQuotedTextByte(_ c: UInt8) -> Bool { CharacterClass.isFieldText(c) }

    private mutating func token() -> String? {
        let start = i
        skip(Self.isTokenByte)
        return i > start ? String(decoding: bytes[start..<i], as: UTF8.self) : nil
    }

    private mutating func quotedOrToken() -> String? {
        guard i < bytes.count, bytes[i] == 34 else { return token() ?? "" }
        i += 1
        var out: [UInt8] = []
        while i < bytes.count {
            let c = bytes[i]
            i += 1
            if c == 34 { return String(decoding: out, as: UTF8.self) }
            guard Self.isQuotedTextByte(c) else { return nil }
            if c == 92 {
                guard i < bytes.count, Self.isQuotedTextByte(bytes[i]) else { return nil }
                out.append(bytes[i])
                i += 1
            } else {
                out.append(c)
            }
        }
        return nil
    }
}
