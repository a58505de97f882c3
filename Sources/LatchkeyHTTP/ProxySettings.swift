/// An HTTP proxy reached with `CONNECT` for `https://` requests, and the hosts that bypass it.
/// Read from `HTTPS_PROXY`/`https_proxy` and `NO_PROXY`/`no_proxy` with curl's semantics.
public struct ProxySettings: Sendable, Equatable {
    /// Proxy host name or address.
    public var host: String
    /// Proxy port (1080 when the URL has none, as curl does).
    public var port: Int
    /// User name for `Proxy-Authorization: Basic`, from the URL's userinfo.
    public var username: String?
    /// Password for `Proxy-Authorization: Basic`; never logged.
    public var password: String?
    /// `NO_PROXY` entries, lowercased, leading dots removed; `*` bypasses every host.
    public var noProxy: [String]

    /// Makes proxy settings directly.
    public init(host: String, port: Int, username: String? = nil, password: String? = nil, noProxy: [String] = []) {
        self.host = host
        self.port = port
        self.username = username
        self.password = password
        self.noProxy = noProxy
    }

    /// The proxy from the environment, or nil when none is set. A variable that names no usable proxy
    /// throws `HTTPError.unusableProxy` (see `ProxyRoute.fromEnvironment`, which also keeps `NO_PROXY`).
    public static func fromEnvironment(_ environment: [String: String]) throws(HTTPError) -> ProxySettings? {
        switch ProxyRoute.fromEnvironment(environment) {
        case .direct: return nil
        case .proxy(let proxy): return proxy
        case .unusable(let error, _): throw error
        }
    }

    /// Parses `[http://][user[:password]@]host[:port][/]`; nil when `validated(proxyURL:)` refuses it.
    public static func parse(proxyURL: String) -> ProxySettings? {
        try? validated(proxyURL: proxyURL)
    }

    /// Parses `[http://][user[:password]@]host[:port][/]`, or says why it is no proxy latchkey can use.
    /// Like curl, anything after the host and port is ignored, unless it holds an `@`: then the user name
    /// or password held an unencoded `/`, `?` or `#`, and what looks like the host is part of them.
    public static func validated(proxyURL: String) throws(URLProblem) -> ProxySettings {
        var rest = Substring(proxyURL)
        if let colon = rest.firstIndex(of: ":"), rest[colon...].hasPrefix("://") {
            let scheme = rest[..<colon]
            guard let first = scheme.first, first.isASCII, first.isLetter,
                scheme.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || "+-.".contains($0)) })
            else {
                throw .malformedScheme
            }
            guard scheme.lowercased() == "http" else { throw .unsupportedScheme(scheme.lowercased()) }
            rest = rest[rest.index(colon, offsetBy: 3)...]
        }
        if let end = rest.firstIndex(where: { "/?#".contains($0) }) {
            guard !rest[end...].contains("@") else { throw .unencodedCredentials }
            rest = rest[..<end]
        }
        var username: String?
        var password: String?
        if let at = rest.lastIndex(of: "@") {
            let userinfo = rest[..<at]
            rest = rest[rest.index(after: at)...]
            if let colon = userinfo.firstIndex(of: ":") {
                username = decodeUserinfo(userinfo[..<colon])
                password = decodeUserinfo(userinfo[userinfo.index(after: colon)...])
            } else {
                username = decodeUserinfo(userinfo)
            }
        }
        var host = rest
        var port = 1080
        if rest.hasPrefix("[") {
            guard let close = rest.firstIndex(of: "]") else { throw .invalidHost }
            host = rest[rest.index(after: rest.startIndex)..<close]
            guard !host.isEmpty, host.allSatisfy({ $0.isHexDigit || $0 == ":" || $0 == "." }) else { throw .invalidHost }
            let after = rest[rest.index(after: close)...]
            if after.hasPrefix(":") {
                guard let p = Int(after.dropFirst()), (1...65535).contains(p) else { throw .invalidPort }
                port = p
            } else if !after.isEmpty {
                throw .invalidHost
            }
        } else {
            if let colon = rest.lastIndex(of: ":") {
                host = rest[..<colon]
                guard let p = Int(rest[rest.index(after: colon)...]), (1...65535).contains(p) else { throw .invalidPort }
                port = p
            }
            guard !host.isEmpty else { throw .missingHost }
            guard host.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || "-._".contains($0)) }) else { throw .invalidHost }
        }
        return ProxySettings(host: String(host), port: port, username: username, password: password)
    }

    /// Why a proxy URL cannot be used. The descriptions never quote the URL: it may hold a password.
    public enum URLProblem: Error, Sendable, Equatable, CustomStringConvertible {
        /// A scheme other than `http` (`https`, `socks5`, …): latchkey speaks only plain-HTTP `CONNECT` to a proxy.
        case unsupportedScheme(String)
        /// Something before `://` that is no URL scheme.
        case malformedScheme
        /// No host name or address.
        case missingHost
        /// A host with characters no host name or address has, or a broken `[IPv6]`.
        case invalidHost
        /// A port that is not a number from 1 to 65535.
        case invalidPort
        /// An `@` after the host: a user name or password with an unencoded `/`, `?` or `#`.
        case unencodedCredentials

        public var description: String {
            switch self {
            case .unsupportedScheme(let s): return "unsupported proxy scheme \(s):// (only http:// proxies are supported)"
            case .malformedScheme: return "malformed proxy URL scheme"
            case .missingHost: return "no proxy host"
            case .invalidHost: return "the proxy host is not a host name or address"
            case .invalidPort: return "the proxy port is not a number from 1 to 65535"
            case .unencodedCredentials:
                return "the user name or password holds an unencoded '/', '?' or '#' (write them as %2F, %3F, %23)"
            }
        }
    }

    /// Splits a `NO_PROXY` value into normalized entries.
    public static func parse(noProxy: String) -> [String] {
        noProxy.split(separator: ",").compactMap { entry in
            var e = entry.lowercased().filter { $0 != " " && $0 != "\t" }
            while e.hasPrefix(".") { e.removeFirst() }
            if e.hasPrefix("["), e.hasSuffix("]") { e = String(e.dropFirst().dropLast()) }
            return e.isEmpty ? nil : e
        }
    }

    /// Whether `host` is reached directly: `*`, an exact match, or a subdomain of an entry (curl's rules).
    public func bypasses(host: String) -> Bool { Self.bypasses(host: host, noProxy: noProxy) }

    /// Whether `host` is reached directly under the `NO_PROXY` entries `noProxy`.
    static func bypasses(host: String, noProxy: [String]) -> Bool {
        var h = host.lowercased()
        if h.hasPrefix("["), h.hasSuffix("]") { h = String(h.dropFirst().dropLast()) }
        if h.hasSuffix(".") { h.removeLast() }
        for entry in noProxy {
            if entry == "*" || h == entry || h.hasSuffix("." + entry) { return true }
        }
        return false
    }

    /// The `Proxy-Authorization` value, when credentials were given.
    var authorization: String? {
        guard let username else { return nil }
        let credentials = username + ":" + (password ?? "")
        return "Basic " + Base64.encode(Array(credentials.utf8))
    }

    /// Percent-decodes a user name or password. `+` is a plus sign here, not a space as in forms.
    private static func decodeUserinfo(_ s: Substring) -> String {
        FormURLEncoding.decodeComponent(Substring(s.map { $0 == "+" ? "%2B" : String($0) }.joined()))
    }

    static func nonEmpty(_ s: String?) -> String? {
        guard let s, !s.isEmpty else { return nil }
        return s
    }
}
