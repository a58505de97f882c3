/// The one redirect loop. `HTTPClient` runs it with its own rule (https or loopback only, at most
/// `maxRedirects`, credentials dropped for another origin); a token-carrying resource request
/// (`AuthorizedTransport`) runs it with its origin pinning, so the token and its proof never leave
/// the origin they were given, and each hop is signed anew.
package enum RedirectLoop {
    /// Sends `request`, then each follow-up `next` asks for. `send` is given the hop's request and
    /// how many redirects led to it; `next` is given the answer, the request it answered and that
    /// count, and returns the request to send next, or nil to hand the answer back as it is.
    package static func run(
        _ request: HTTPRequest,
        send: (_ hop: HTTPRequest, _ redirects: Int) async throws -> HTTPResponse,
        next: (_ answer: HTTPResponse, _ hop: HTTPRequest, _ redirects: Int) throws -> HTTPRequest?
    )
        async throws -> HTTPResponse
    {
        var current = request
        var redirects = 0
        while true {
            let response = try await send(current, redirects)
            guard let follow = try next(response, current, redirects) else { return response }
            redirects += 1
            current = follow
        }
    }
}
