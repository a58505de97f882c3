import FoundationEssentials

/// Where a request goes, taken apart from its URL and checked against the transport rules:
/// `https://` anywhere, `http://` only to loopback hosts.
struct RequestTarget: Sendable, Equatable {
    let isTLS: Bool
    /// Host without brackets.
    let host: String
    let port: Int
    /// Path and query, e.g. `/token?x=1` (never empty).
    let pathAndQuery: String

    init(url: URL) throws(HTTPError) {
        guard let scheme = url.scheme?.lowercased() else { throw .invalidURL("\(url.absoluteString): no scheme") }
        guard scheme == "https" || scheme == "http" else {
            throw .invalidURL("\(url.absoluteString): only https (or http to loopback) is supported")
        }
        guard var host = url.host(percentEncoded: false), !host.isEmpty else {
            throw .invalidURL("\(url.absoluteString): no host")
        }
        if host.hasPrefix("["), host.hasSuffix("]") { host = String(host.dropFirst().dropLast()) }
        guard !host.utf8.contains(where: { $0 <= 0x20 || $0 == 0x7F || $0 == UInt8(ascii: "/") }) else {
            throw .invalidURL("\(url.absoluteString): invalid host")
        }
        isTLS = scheme == "https"
        if !isTLS && !LoopbackAddress.isLoopbackHost(host) {
            throw .invalidURL("\(url.absoluteString): http:// is only allowed for loopback hosts; use https://")
        }
        self.host = host
        let p = url.port ?? (isTLS ? 443 : 80)
        guard (1...65535).contains(p) else { throw .invalidURL("\(url.absoluteString): bad port") }
        port = p
        var path = url.path(percentEncoded: true)
        if path.isEmpty { path = "/" }
        if let query = url.query(percentEncoded: true) { path += "?" + query }
        guard !path.utf8.contains(where: { $0 <= 0x20 || $0 == 0x7F }) else {
            throw .invalidURL("\(url.absoluteString): invalid characters in path")
        }
        pathAndQuery = path
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
