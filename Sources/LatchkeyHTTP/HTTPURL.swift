import Glibc

/// An absolute `https://` URL, or `http://` to a loopback host: the only URLs Latchkey talks to or
/// sends a person to (RFC 8252 §8.3, overview.md). The core's replacement for Foundation's `URL`.
///
/// Strict RFC 3986: only its printable ASCII characters, valid `%XX` escapes, no user info, a
/// host that is a DNS name, an IPv4 literal or a bracketed IPv6 literal, and a port in 1…65535.
/// Whatever parses here can be written to a request line, a header, a terminal or a QR code.
/// `absoluteString` is the text as given; `host` and `scheme` are compared lower-cased.
public struct HTTPURL: Sendable, Hashable, CustomStringConvertible {
    /// The text as given (already validated).
    public let absoluteString: String
    /// `https` or `http`, lower-cased.
    public let scheme: String
    /// The host without brackets, lower-cased (`idp.example`, `127.0.0.1`, `::1`).
    public let host: String
    /// The explicit port, or nil for the scheme's default.
    public let port: Int?
    /// The path, percent-encoded as given; empty or starting with `/`.
    public let path: String
    /// The query without `?`, percent-encoded as given; nil when there is no `?`.
    public let query: String?
    /// The fragment without `#`; nil when there is none.
    public let fragment: String?

    /// Parses `string`; nil when it breaks any rule (`parse` says which).
    public init?(string: String) {
        guard let url = try? HTTPURL.parse(string) else { return nil }
        self = url
    }

    private init(absoluteString: String, scheme: String, host: String, port: Int?, path: String, query: String?, fragment: String?) {
        self.absoluteString = absoluteString
        self.scheme = scheme
        self.host = host
        self.port = port
        self.path = path
        self.query = query
        self.fragment = fragment
    }

    /// True for `https`.
    public var isTLS: Bool { scheme == "https" }
    /// The port used: the explicit one, else 443 or 80.
    public var effectivePort: Int { port ?? (isTLS ? 443 : 80) }
    /// The host as written in a URL or `Host` header: IPv6 literals in brackets.
    public var hostLiteral: String { host.contains(":") ? "[" + host + "]" : host }
    /// The path and query for a request line (`/` when the path is empty).
    public var pathAndQuery: String { (path.isEmpty ? "/" : path) + (query.map { "?" + $0 } ?? "") }
    /// `scheme://host[:port]` with default ports left out: the RFC 6454 origin, for same-origin rules.
    public var origin: String {
        scheme + "://" + hostLiteral + (port.map { $0 == (isTLS ? 443 : 80) ? "" : ":" + String($0) } ?? "")
    }
    /// `scheme://host[:port]` exactly as the port was given: the base that absolute-path
    /// references (redirects, RFC 8414 well-known URLs) are joined to.
    public var schemeAndAuthority: String { scheme + "://" + hostLiteral + (port.map { ":" + String($0) } ?? "") }
    /// The URL without query and fragment (RFC 9449 `htu`, error messages).
    public var withoutQueryAndFragment: String { origin + path }
    public var description: String { absoluteString }

    /// This URL with `pairs` appended to its query, form-encoded.
    public func appendingQuery(_ pairs: [(String, String)]) -> HTTPURL {
        guard !pairs.isEmpty else { return self }
        var base = absoluteString
        var tail = ""
        if let hash = base.firstIndex(of: "#") { tail = String(base[hash...]); base = String(base[..<hash]) }
        let separator = query == nil ? "?" : (query!.isEmpty || base.hasSuffix("&") ? "" : "&")
        // Encoded pairs are unreserved characters, `%`, `=` and `&` only: the result parses.
        return HTTPURL(string: base + separator + FormURLEncoding.encode(pairs) + tail)!
    }

    /// Resolves a `Location`-style reference against this URL (RFC 3986 §5.2): absolute,
    /// network-path (`//host/…`), absolute-path (`/…`), query-only (`?…`) or relative-path.
    /// The result obeys every rule of `parse`.
    public func resolving(_ reference: String) throws(HTTPError) -> HTTPURL {
        let lower = reference.lowercased()
        if lower.hasPrefix("https://") || lower.hasPrefix("http://") { return try HTTPURL.parse(reference) }
        if reference.hasPrefix("//") { return try HTTPURL.parse(scheme + ":" + reference) }
        let authority = schemeAndAuthority
        if reference.hasPrefix("/") { return try HTTPURL.parse(authority + HTTPURL.removingDotSegments(reference)) }
        if reference.hasPrefix("?") { return try HTTPURL.parse(authority + path + reference) }
        if reference.hasPrefix("#") { return try HTTPURL.parse(authority + pathAndQuery + reference) }
        // `scheme:` of another kind (mailto:, javascript:) is never followed.
        if let colon = reference.firstIndex(of: ":"), !reference[..<colon].contains(where: { "/?#".contains($0) }) {
            throw .invalidURL("\(reference): only https (or http to loopback) is supported")
        }
        let directory = path.isEmpty ? "/" : String(path[...(path.lastIndex(of: "/") ?? path.startIndex)])
        return try HTTPURL.parse(authority + HTTPURL.removingDotSegments(directory + reference))
    }

    /// Parses and checks `string`, saying what is wrong with it.
    public static func parse(_ string: String) throws(HTTPError) -> HTTPURL {
        let bytes = Array(string.utf8)
        guard bytes.count <= 8192 else { throw .invalidURL("URL longer than 8192 bytes") }
        guard let colon = bytes.firstIndex(of: UInt8(ascii: ":")), colon > 0 else { throw .invalidURL("\(string): no scheme") }
        let scheme = String(decoding: bytes[..<colon], as: UTF8.self).lowercased()
        guard scheme == "https" || scheme == "http" else {
            throw .invalidURL("\(string): only https (or http to loopback) is supported")
        }
        guard bytes.count >= colon + 3, bytes[colon + 1] == UInt8(ascii: "/"), bytes[colon + 2] == UInt8(ascii: "/") else {
            throw .invalidURL("\(string): no host")
        }
        for b in bytes where !allowed(b) { throw .invalidURL("\(string): character 0x\(hex(b)) is not allowed in a URL") }
        guard escapesAreValid(bytes) else { throw .invalidURL("\(string): invalid percent-escape") }

        let authorityStart = colon + 3
        var end = authorityStart
        while end < bytes.count, ![UInt8(ascii: "/"), UInt8(ascii: "?"), UInt8(ascii: "#")].contains(bytes[end]) { end += 1 }
        let authority = Array(bytes[authorityStart..<end])
        guard !authority.contains(UInt8(ascii: "@")) else { throw .invalidURL("\(string): user information is not allowed") }
        var hostBytes = authority[...]
        var port: Int?
        if authority.first == UInt8(ascii: "[") {
            guard let close = authority.firstIndex(of: UInt8(ascii: "]")) else { throw .invalidURL("\(string): unclosed IPv6 literal") }
            hostBytes = authority[1..<close]
            let rest = authority[(close + 1)...]
            if !rest.isEmpty {
                guard rest.first == UInt8(ascii: ":") else { throw .invalidURL("\(string): invalid host") }
                port = try parsePort(rest.dropFirst(), string)
            }
            var v6 = in6_addr()
            guard inet_pton(AF_INET6, String(decoding: hostBytes, as: UTF8.self), &v6) == 1 else {
                throw .invalidURL("\(string): invalid IPv6 literal")
            }
        } else {
            if let c = authority.firstIndex(of: UInt8(ascii: ":")) {
                hostBytes = authority[..<c]
                port = try parsePort(authority[(c + 1)...], string)
            }
            // A DNS name or IPv4 literal: letters, digits, `-`, `.` (and `_`, which some hosts use).
            guard
                hostBytes.allSatisfy({ isAlphaNumeric($0) || $0 == UInt8(ascii: "-") || $0 == UInt8(ascii: ".") || $0 == UInt8(ascii: "_") }
                )
            else { throw .invalidURL("\(string): invalid host") }
        }
        guard !hostBytes.isEmpty else { throw .invalidURL("\(string): no host") }
        let host = String(decoding: hostBytes, as: UTF8.self).lowercased()
        if scheme == "http" && !LoopbackAddress.isLoopbackHost(host) {
            throw .invalidURL("\(string): http:// is only allowed for loopback hosts; use https://")
        }

        var pathEnd = end
        while pathEnd < bytes.count, bytes[pathEnd] != UInt8(ascii: "?"), bytes[pathEnd] != UInt8(ascii: "#") { pathEnd += 1 }
        let path = String(decoding: bytes[end..<pathEnd], as: UTF8.self)
        var query: String?
        var fragmentStart = pathEnd
        if pathEnd < bytes.count, bytes[pathEnd] == UInt8(ascii: "?") {
            var q = pathEnd + 1
            while q < bytes.count, bytes[q] != UInt8(ascii: "#") { q += 1 }
            query = String(decoding: bytes[(pathEnd + 1)..<q], as: UTF8.self)
            fragmentStart = q
        }
        var fragment: String?
        if fragmentStart < bytes.count {
            let f = bytes[(fragmentStart + 1)...]
            guard !f.contains(UInt8(ascii: "#")) else { throw .invalidURL("\(string): two fragments") }
            fragment = String(decoding: f, as: UTF8.self)
        }
        return HTTPURL(absoluteString: string, scheme: scheme, host: host, port: port, path: path, query: query, fragment: fragment)
    }

    private static func parsePort(_ digits: ArraySlice<UInt8>, _ string: String) throws(HTTPError) -> Int {
        guard !digits.isEmpty, digits.count <= 5, digits.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }) else {
            throw .invalidURL("\(string): bad port")
        }
        let value = digits.reduce(0) { $0 * 10 + Int($1 - 0x30) }
        guard (1...65535).contains(value) else { throw .invalidURL("\(string): bad port") }
        return value
    }

    /// RFC 3986 unreserved, reserved and `%`: printable ASCII except space, `"`, `<`, `>`, `\`,
    /// `^`, `` ` ``, `{`, `|`, `}`.
    private static func allowed(_ b: UInt8) -> Bool {
        guard CharacterClass.isVisible(b) else { return false }
        return !"\"<>\\^`{|}".utf8.contains(b)
    }

    private static func escapesAreValid(_ bytes: [UInt8]) -> Bool {
        var i = 0
        while i < bytes.count {
            if bytes[i] == UInt8(ascii: "%") {
                guard i + 2 < bytes.count, isHex(bytes[i + 1]), isHex(bytes[i + 2]) else { return false }
                i += 3
            } else {
                i += 1
            }
        }
        return true
    }

    /// RFC 3986 §5.2.4 for an absolute path: `.` and `..` segments resolved, never above the root.
    static func removingDotSegments(_ pathAndRest: String) -> String {
        var path = pathAndRest
        var rest = ""
        if let i = pathAndRest.firstIndex(where: { $0 == "?" || $0 == "#" }) {
            path = String(pathAndRest[..<i])
            rest = String(pathAndRest[i...])
        }
        var out: [Substring] = []
        let segments = path.split(separator: "/", omittingEmptySubsequences: false).dropFirst()
        for (n, segment) in segments.enumerated() {
            let last = n == segments.count - 1
            if segment == "." {
                if last { out.append("") }
            } else if segment == ".." {
                if !out.isEmpty { out.removeLast() }
                if last { out.append("") }
            } else {
                out.append(segment)
            }
        }
        return "/" + out.joined(separator: "/") + rest
    }

    private static func isHex(_ b: UInt8) -> Bool { (b >= 0x30 && b <= 0x39) || (b | 0x20 >= 0x61 && b | 0x20 <= 0x66) }
    private static func isAlphaNumeric(_ b: UInt8) -> Bool { (b >= 0x30 && b <= 0x39) || (b | 0x20 >= 0x61 && b | 0x20 <= 0x7A) }
    private static func hex(_ b: UInt8) -> String {
        let d = Array("0123456789ABCDEF")
        return String([d[Int(b >> 4)], d[Int(b & 15)]])
    }
}
