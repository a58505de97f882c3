/// One HTTP request, as the OAuth layer describes it. Plain value; the transport decides how to send it.
public struct HTTPRequest: Sendable {
    /// The method, sent exactly as given (RFC 9110 §9.1: methods are case-sensitive, so `get` is
    /// not `GET`); it must be a token (`isValidMethod`), else sending fails.
    public var method: String
    /// Absolute `https://` URL, or `http://` for loopback hosts only.
    public var url: HTTPURL
    /// Request headers in order; names compared case-insensitively by the transport.
    public var headers: [(name: String, value: String)]
    /// Request body (empty for GET).
    public var body: [UInt8]
    /// How many redirects may be followed (0 for token, device and revocation endpoints).
    public var maxRedirects: Int
    /// Overall deadline for the exchange, in seconds.
    public var timeout: Double

    /// Makes a request. `timeout` bounds connect, handshake, send and receive together.
    public init(
        method: String = "GET", url: HTTPURL, headers: [(name: String, value: String)] = [],
        body: [UInt8] = [], maxRedirects: Int = 0, timeout: Double = 30
    ) {
        self.method = method
        self.url = url
        self.headers = headers
        self.body = body
        self.maxRedirects = maxRedirects
        self.timeout = timeout
    }

    /// True when `method` is an RFC 9110 §5.6.2 token (`tchar`s: letters, digits and
    /// ``!#$%&'*+-.^_`|~``), the only form a request line and a DPoP `htm` can carry alike.
    public static func isValidMethod(_ method: String) -> Bool {
        !method.isEmpty
            && method.utf8.allSatisfy { c in
                (c >= 0x41 && c <= 0x5A) || (c >= 0x61 && c <= 0x7A) || (c >= 0x30 && c <= 0x39)
                    || Array("!#$%&'*+-.^_`|~".utf8).contains(c)
            }
    }
}

/// One HTTP response, fully read and bounded.
public struct HTTPResponse: Sendable {
    /// The status code, e.g. 200.
    public var status: Int
    /// Response headers in order, names as received.
    public var headers: [(name: String, value: String)]
    /// The decoded body (chunked encoding removed).
    public var body: [UInt8]
    /// The URL that finally answered (after any permitted redirects).
    public var url: HTTPURL

    /// Makes a response value (transports and test fakes use this).
    public init(status: Int, headers: [(name: String, value: String)] = [], body: [UInt8] = [], url: HTTPURL) {
        self.status = status
        self.headers = headers
        self.body = body
        self.url = url
    }

    /// The same status, headers and URL with an empty body: what a `HTTPBodySinkChooser` is shown.
    public var withoutBody: HTTPResponse { HTTPResponse(status: status, headers: headers, url: url) }

    /// The first header named `name` (case-insensitive); repeated headers joined with ", ".
    public func header(_ name: String) -> String? {
        let values = headers.filter { $0.name.lowercased() == name.lowercased() }.map(\.value)
        return values.isEmpty ? nil : values.joined(separator: ", ")
    }

    /// The media type of `Content-Type` without parameters, lowercased (e.g. `application/json`).
    public var mediaType: String? {
        guard let ct = header("Content-Type") else { return nil }
        let base = ct.split(separator: ";", maxSplits: 1).first.map(String.init) ?? ct
        return base.lowercased().filter { $0 != " " && $0 != "\t" }
    }
}

/// The seam between the OAuth layer and the network. `HTTPClient` (mbedTLS) is the default;
/// tests use an in-memory fake, and library users may bring their own.
public protocol HTTPTransport: Sendable {
    /// Sends `request` and returns the complete response, or throws `HTTPError`.
    func send(_ request: HTTPRequest) async throws -> HTTPResponse

    /// Sends `request` and hands the final response's body to the sink `bodySink` chooses for it,
    /// as the body arrives; the returned response then has an empty body. Redirects the transport
    /// follows itself are never offered. The default buffers the whole response with `send` and
    /// writes it to the sink in one piece, so every transport supports the call; `HTTPClient`
    /// streams for real.
    func send(_ request: HTTPRequest, bodySink: @escaping HTTPBodySinkChooser) async throws -> HTTPResponse
}

extension HTTPTransport {
    /// The buffered fallback: `send`, then the whole body to the chosen sink.
    public func send(_ request: HTTPRequest, bodySink: @escaping HTTPBodySinkChooser) async throws -> HTTPResponse {
        var response = try await send(request)
        guard let sink = try bodySink(response.withoutBody) else { return response }
        if !response.body.isEmpty { try sink.write(response.body[...]) }
        response.body = []
        return response
    }
}
