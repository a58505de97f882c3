/// The default `HTTPTransport`: HTTP/1.1 over mbedTLS (3.6, or 2.28 in a build against Debian 12's), one request per connection.
///
/// TLS 1.3 or 1.2 (1.2 only with 2.28), certificate chain and host name verified, SNI; `http://` only to loopback; IPv4 and
/// IPv6; connect timeout and an overall per-request deadline; `HTTPS_PROXY` through `CONNECT`; bounded,
/// strictly parsed responses; redirects only when the request allows them, and only to https or loopback.
/// Blocking I/O runs on a dedicated thread, and cancelling the task aborts it promptly.
public struct HTTPClient: HTTPTransport {
    /// The configuration this client was made with.
    public let configuration: Configuration
    private let caChain: CAChainCache

    /// Makes a client. The CA bundle is parsed on the first https request and reused after (one parsed
    /// copy per concurrent handshake, see `CAChainCache`).
    public init(configuration: Configuration) {
        self.configuration = configuration
        self.caChain = CAChainCache(path: configuration.caFile)
    }

    /// Sends `request`, following redirects only as far as `request.maxRedirects` allows.
    public func send(_ request: HTTPRequest) async throws -> HTTPResponse {
        try await send(request, streaming: nil)
    }

    /// Sends `request` and streams the final response's body to the sink `bodySink` chooses, piece
    /// by piece as it is read (at most one 16 KiB read is held), under the same framing rules and
    /// `limits` as `send`. Redirects this client follows are buffered and never offered.
    public func send(_ request: HTTPRequest, bodySink: @escaping HTTPBodySinkChooser) async throws -> HTTPResponse {
        try await send(request, streaming: bodySink)
    }

    private func send(_ request: HTTPRequest, streaming: HTTPBodySinkChooser?) async throws -> HTTPResponse {
        let overall = Deadline(secondsFromNow: request.timeout)
        return try await RedirectLoop.run(
            request,
            send: { hop, _ in
                try await exchange(hop, deadline: overall, streaming: streaming)
            },
            next: { response, current, redirects in
                try Self.followUp(response, to: current, redirects: redirects)
            })
    }

    /// This client's redirect rule: the request to send after `response` to `current`, or nil when
    /// the answer is handed back. More than `maxRedirects`, a `Location` that does not resolve, or a
    /// step from https to http is an error.
    private static func followUp(_ response: HTTPResponse, to current: HTTPRequest, redirects: Int) throws -> HTTPRequest? {
        guard follows(response.status, response.headers, current) else { return nil }
        guard let location = response.header("Location") else { return nil }
        guard redirects < current.maxRedirects else {
            throw HTTPError.protocolViolation(reason: "more than \(current.maxRedirects) redirects")
        }
        let next: HTTPURL
        do { next = try current.url.resolving(location) } catch {
            throw HTTPError.invalidURL("redirect refused: \(error)")
        }
        let from = try RequestTarget(url: current.url)
        let to = try RequestTarget(url: next)
        if from.isTLS && !to.isTLS {
            throw HTTPError.invalidURL("redirect from https to http refused")
        }
        var follow = RedirectStatus.followUp(current, status: response.status, to: next)
        if from.host.lowercased() != to.host.lowercased() || from.port != to.port || from.isTLS != to.isTLS {
            // Credentials are for the origin that was asked, never for wherever it redirects.
            follow.headers.removeAll { ["authorization", "cookie", "dpop"].contains($0.name.lowercased()) }
        }
        return follow
    }

    /// Whether `send` follows this answer to `request` itself (so it is never streamed).
    private static func follows(_ status: Int, _ headers: [(name: String, value: String)], _ request: HTTPRequest) -> Bool {
        RedirectStatus.isFollowed(status) && request.maxRedirects > 0
            && headers.contains { $0.name.lowercased() == "location" }
    }

    /// One request/response on a fresh connection; with `streaming`, the body goes to the chosen sink.
    private func exchange(_ request: HTTPRequest, deadline: Deadline, streaming chooser: HTTPBodySinkChooser?) async throws -> HTTPResponse
    {
        let target = try RequestTarget(url: request.url)
        // An unusable proxy variable fails here, before any connection: never silently direct.
        let proxy = target.isTLS ? try configuration.proxyRoute.proxy(forHost: target.host) : nil
        let head = try HTTPRequestHead.serialize(request, target: target, userAgent: configuration.userAgent)
        // Which bundle decides trust is the first question when a handshake fails: say it, even
        // when loading it is what fails next.
        if target.isTLS { configuration.logger?("* CA bundle: " + (caChain.path ?? "none found")) }
        let chain: CACertificateChain? = target.isTLS ? try caChain.checkOut() : nil
        defer { if let chain { caChain.checkIn(chain) } }
        let configuration = self.configuration
        if let log = configuration.logger {
            log(HTTPClient.describe(request: request))
        }
        let flag = CancellationFlag()
        let url = request.url
        let streaming = chooser.map { choose in
            BodyStreaming { status, headers in
                if Self.follows(status, headers, request) { return nil }
                return try choose(HTTPResponse(status: status, headers: headers, url: url))
            }
        }
        let message: HTTPResponseParser.Message
        do {
            message = try await withTaskCancellationHandler {
                try await DedicatedThread.run { () throws(HTTPError) -> HTTPResponseParser.Message in
                    try Connection.perform(
                        head: head, body: request.body, target: target, method: request.method,
                        caChain: chain, proxy: proxy, configuration: configuration,
                        deadline: deadline, timeout: request.timeout, cancellation: flag,
                        streaming: streaming)
                }
            } onCancel: {
                flag.cancel()
            }
        } catch let error as HTTPError {
            // A chooser's or sink's own failure (a full disk, a closed pipe) is rethrown as it was.
            if let callerError = streaming?.callerError { throw callerError }
            configuration.logger?("! \(error)")
            throw error
        } catch {
            throw HTTPError.ioFailure(reason: "\(error)")
        }
        let response = HTTPResponse(status: message.status, headers: message.headers, body: message.body, url: request.url)
        if let log = configuration.logger {
            log(HTTPClient.describe(response: response))
        }
        return response
    }

    /// A redacted, multi-line rendering of a request for verbose logs.
    public static func describe(request: HTTPRequest) -> String {
        var lines = ["> \(request.method) \(HTTPRedaction.redact(url: request.url.absoluteString))"]
        for (name, value) in request.headers {
            lines.append("> \(name): \(HTTPRedaction.redact(headerName: name, value: value))")
        }
        let contentType = request.headers.first { $0.name.lowercased() == "content-type" }?.value
        let body = HTTPRedaction.redact(body: request.body, contentType: contentType)
        if !body.isEmpty { lines.append("> " + body) }
        return lines.joined(separator: "\n")
    }

    /// A redacted, multi-line rendering of a response for verbose logs.
    public static func describe(response: HTTPResponse) -> String {
        var lines = ["< \(response.status)"]
        for (name, value) in response.headers {
            lines.append("< \(name): \(HTTPRedaction.redact(headerName: name, value: value))")
        }
        let body = HTTPRedaction.redact(body: response.body, contentType: response.header("Content-Type"))
        if !body.isEmpty { lines.append("< " + body) }
        return lines.joined(separator: "\n")
    }
}
