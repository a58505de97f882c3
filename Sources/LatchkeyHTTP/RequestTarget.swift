/// Where a request goes, taken from its URL: what a connection needs. `HTTPURL` has already
/// enforced the transport rules (`https://` anywhere, `http://` only to loopback hosts).
struct RequestTarget: Sendable, Equatable {
    let isTLS: Bool
    /// Host without brackets.
    let host: String
    let port: Int
    /// Path and query, e.g. `/token?x=1` (never empty).
    let pathAndQuery: String

    init(url: HTTPURL) throws(HTTPError) {
        isTLS = url.isTLS
        host = url.host
        port = url.effectivePort
        pathAndQuery = url.pathAndQuery
    }

    /// The `Host` header value (brackets for IPv6, port only when not the default).
    var hostHeader: String {
        let h = host.contains(":") ? "[\(host)]" : host
        return port == (isTLS ? 443 : 80) ? h : "\(h):\(port)"
    }

    /// `host:port` for `CONNECT`.
    var authority: String {
        (host.contains(":") ? "[\(host)]" : host) + ":\(port)"
    }
}
