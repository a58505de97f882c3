/// Serializes the request line and headers. The transport owns framing and connection headers
/// (`Host`, `Connection: close`, `Content-Length`, `Accept-Encoding: identity`); callers' copies are dropped.
enum HTTPRequestHead {
    private static let transportOwned: Set<String> = [
        "host", "connection", "content-length", "transfer-encoding", "accept-encoding", "te", "upgrade",
        "keep-alive", "proxy-connection", "expect"
    ]

    static func serialize(_ request: HTTPRequest, target: RequestTarget, userAgent: String) throws(HTTPError) -> [UInt8] {
        // As given, never case-folded: a DPoP proof signs this same text as `htm` (RFC 9449 §4.2).
        let method = request.method
        guard HTTPRequest.isValidMethod(method) else {
            throw .invalidURL("invalid request method \(request.method)")
        }
        var head = "\(method) \(target.pathAndQuery) HTTP/1.1\r\n"
        head += "Host: \(target.hostHeader)\r\n"
        var hasUserAgent = false
        var lines = ""
        for (name, value) in request.headers {
            // A CR or LF here would let a value inject headers or a second request.
            guard !name.isEmpty, name.utf8.allSatisfy({ CharacterClass.isVisible($0) && $0 != UInt8(ascii: ":") }),
                !value.utf8.contains(where: { $0 == 0x0D || $0 == 0x0A || $0 == 0 })
            else {
                throw .invalidURL("invalid request header \(name)")
            }
            let lower = name.lowercased()
            if transportOwned.contains(lower) { continue }
            if lower == "user-agent" { hasUserAgent = true }
            lines += "\(name): \(value)\r\n"
        }
        if !hasUserAgent { head += "User-Agent: \(userAgent)\r\n" }
        head += lines
        head += "Accept-Encoding: identity\r\nConnection: close\r\n"
        if !request.body.isEmpty || method == "POST" || method == "PUT" {
            head += "Content-Length: \(request.body.count)\r\n"
        }
        head += "\r\n"
        return Array(head.utf8)
    }
}
