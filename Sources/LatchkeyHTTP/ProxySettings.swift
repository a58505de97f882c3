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

    /// The proxy from the environment, or nil when none is set (or it is not an `http://` proxy URL).
    /// The lowercase variables win over the uppercase ones, as in curl.
    public static func fromEnvironment(_ environment: [String: String]) -> ProxySettings? {
        guard let raw = nonEmpty(environment["https_proxy"]) ?? nonEmpty(environment["HTTPS_PROXY"]) else { return nil }
        guard var proxy = parse(proxyURL: raw) else { return nil }
        let noProxy = nonEmpty(environment["no_proxy"]) ?? nonEmpty(environment["NO_PROXY"]) ?? ""
        proxy.noProxy = parse(noProxy: noProxy)
        return proxy
    }

    /// Parses `[http://][user[:password]@]host[:port][/]`; nil for other schemes or a missing host.
    public static func parse(proxyURL: String) -> ProxySettings? {
        var rest = Substring(proxyURL)
        if let colon = rest.firstIndex(of: ":"), rest[colon...].hasPrefix("://") {
            guard rest[..<colon].lowercased() == "http" else { return nil }
            rest = rest[rest.index(colon, offsetBy: 3)...]
        }
        if let slash = rest.firstIndex(of: "/") { rest = rest[..<slash] }
        var username: String?
        var password: String?
        if let at = rest.lastIndex(of: "@") {
            let userinfo = rest[..<at]
            rest = rest[rest.index(after: at)...]
            if let colon = userinfo.firstIndex(of: ":") {
                username = FormURLEncoding.decodeComponent(userinfo[..<colon])
                password = FormURLEncoding.decodeComponent(userinfo[userinfo.index(after: colon)...])
            } else {
                username = FormURLEncoding.decodeComponent(userinfo)
            }
        }
        var host = rest
        var port = 1080
        if rest.hasPrefix("[") {
            guard let close = rest.firstIndex(of: "]") else { return nil }
            host = rest[rest.index(after: rest.startIndex)..<close]
            let after = rest[rest.index(after: close)...]
            if after.hasPrefix(":") {
                guard let p = Int(after.dropFirst()), (1...65535).contains(p) else { return nil }
                port = p
            } else if !after.isEmpty { return nil }
        } else if let colon = rest.lastIndex(of: ":") {
            host = rest[..<colon]
            guard let p = Int(rest[rest.index(after: colon)...]), (1...65535).contains(p) else { return nil }
            port = p
        }
        guard !host.isEmpty else { return nil }
        return ProxySettings(host: String(host), port: port, username: username, password: password)
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
    public func bypasses(host: String) -> Bool {
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

    private static func nonEmpty(_ s: String?) -> String? {
        guard let s, !s.isEmpty else { return nil }
        return s
    }
}
