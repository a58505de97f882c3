/// The redirect statuses a client follows (RFC 9110 §15.4) and what following one does to the
/// request, shared by `HTTPClient` and the token-carrying `AuthorizedTransport`.
package enum RedirectStatus {
    /// 301, 302, 303, 307 or 308.
    package static func isFollowed(_ status: Int) -> Bool {
        status == 301 || status == 302 || status == 303 || status == 307 || status == 308
    }

    /// The request to send to the redirect's target: a 303, or a 301/302 answer to a POST, is
    /// followed with a GET without the body or its content headers (§15.4.2–4, as browsers do);
    /// 307 and 308 repeat the request as it was.
    package static func followUp(_ request: HTTPRequest, status: Int, to url: HTTPURL) -> HTTPRequest {
        var next = request
        next.url = url
        if status == 303 || ((status == 301 || status == 302) && request.method == "POST") {
            next.method = "GET"
            next.body = []
            next.headers.removeAll { HeaderName.equal($0.name, "Content-Type") || HeaderName.equal($0.name, "Content-Length") }
        }
        return next
    }
}
