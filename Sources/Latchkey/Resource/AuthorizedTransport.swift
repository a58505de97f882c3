import LatchkeyHTTP

/// An `HTTPTransport` that calls an API with the access token (x/oauth2's `Transport`): it adds
/// `Authorization` from a `TokenSource`, refreshes once when the resource server answers
/// `401 … error="invalid_token"` (RFC 6750 §3.1), and never sends the token to an origin it was not
/// given. Redirects are followed only within the same origin (at most `request.maxRedirects`); a
/// redirect elsewhere is returned as it is, unfollowed, for the caller to report.
///
/// A DPoP-bound token (RFC 9449 §7) goes as `Authorization: DPoP …` with a fresh proof carrying
/// `ath` on every request (each redirect hop too); a `401 … error="use_dpop_nonce"` is retried once
/// with the server's `DPoP-Nonce`, and a second one is a protocol violation.
///
/// A `401 … error="insufficient_user_authentication"` (RFC 9470 §3) is not a refusal of the token
/// that a refresh can fix: it is handed back as it is, and `stepUp(in:)` reads what it asks for,
/// so the caller decides whether to sign in again (a refresh would bring the same authentication).
public struct AuthorizedTransport: HTTPTransport {
    /// The transport underneath.
    public let base: any HTTPTransport
    /// Where the token comes from.
    public let source: any TokenSource
    /// The origins (`https://host[:port]`) the token may be sent to.
    public let allowedOrigins: [String]
    /// Proofs for DPoP-bound tokens: `proofs` when given, else the source's own (a `Session`'s).
    public let proofs: (any DPoPProofSource)?

    /// Makes a transport that sends the token only to the origins of `allowed` (at least one).
    public init(base: any HTTPTransport, source: any TokenSource, allowed: [HTTPURL], proofs: (any DPoPProofSource)? = nil) {
        self.base = base
        self.source = source
        self.allowedOrigins = allowed.map(\.origin)
        self.proofs = proofs ?? source.dpopProofs
    }

    /// Sends `request` with the token; a request to another origin is refused before any token is read.
    public func send(_ request: HTTPRequest) async throws -> HTTPResponse {
        try await send(request, streaming: nil)
    }

    /// As `send(_:)`, with the final answer's body streamed to the sink `bodySink` chooses. Every
    /// retry decision (refresh on `invalid_token`, the `use_dpop_nonce` retry, a same-origin
    /// redirect) is made on the head, so a body the caller is offered is never one that is retried
    /// or followed: those stay buffered and are dropped.
    public func send(_ request: HTTPRequest, bodySink: @escaping HTTPBodySinkChooser) async throws -> HTTPResponse {
        try await send(request, streaming: bodySink)
    }

    private func send(_ request: HTTPRequest, streaming: HTTPBodySinkChooser?) async throws -> HTTPResponse {
        guard allowedOrigins.contains(request.url.origin) else {
            throw LatchkeyError.configuration(.tokenOriginNotAllowed(origin: request.url.origin))
        }
        var token = try await source.token()
        // RFC 9449 §9: a nonce is remembered on receipt, so the retry's proof carries it. The server
        // refused this token (revoked, expired early): one refresh, one retry, no more.
        return try await RetryRule.sending(
            .resource,
            attempt: { rule in
                try await sendFollowingSameOrigin(request, token: token, rule: rule, streaming: streaming)
            },
            renew: {
                token = try await source.token(replacing: token)
            }, refusal: { $0 })
    }

    /// What a `401 … error="insufficient_user_authentication"` answer asks of the sign-in (RFC
    /// 9470 §3), or nil for any other answer.
    package static func stepUp(in response: HTTPResponse) -> StepUpRequirement? {
        guard response.status == 401 else { return nil }
        return ResourceChallenge(wwwAuthenticate: response.header("WWW-Authenticate"))?.stepUp
    }

    /// `401 … error="invalid_token"` in the token's own scheme (RFC 6750 §3.1).
    private static func refusesToken(_ response: HTTPResponse, _ token: Token) -> Bool {
        response.status == 401
            && AuthenticationChallenge.hasError("invalid_token", scheme: token.tokenType, in: response.header("WWW-Authenticate"))
    }

    /// The resource role's redirect rule: the request after a redirect answer to `current`
    /// (`redirects` so far, at most `max`) when it stays on the same origin; nil hands the answer
    /// back unfollowed.
    private static func followUp(_ response: HTTPResponse, to current: HTTPRequest, redirects: Int, max: Int) -> HTTPRequest? {
        guard RedirectStatus.isFollowed(response.status), let location = response.header("Location"),
            redirects < max, let next = try? current.url.resolving(location), next.origin == current.url.origin
        else { return nil }
        return RedirectStatus.followUp(current, status: response.status, to: next)
    }

    /// Sends with `token` through the one redirect loop (`RedirectLoop`), pinned to the origin and
    /// each hop with its own proof; the answer says whether the final one brought a `DPoP-Nonce`
    /// not held before.
    private func sendFollowingSameOrigin(
        _ request: HTTPRequest, token: Token, rule: RetryRule,
        streaming: HTTPBodySinkChooser?
    ) async throws -> RetryRule.Answer {
        var first = request
        first.maxRedirects = 0
        let max = request.maxRedirects
        let bound = TokenBinding(token) == .dpop
        var change = NonceChange.refused
        let response = try await RedirectLoop.run(
            first,
            send: { current, redirects in
                var authorized = current
                authorized.headers.removeAll { HeaderName.equal($0.name, "Authorization") || HeaderName.equal($0.name, "DPoP") }
                authorized.headers.append(("Authorization", token.tokenType + " " + token.accessToken))
                if bound {
                    guard let proofs else { throw LatchkeyError.tokenBinding(.missingKey) }
                    authorized.headers.append(
                        (
                            "DPoP",
                            try await proofs.dpopProof(
                                method: current.method, url: current.url,
                                accessToken: token.accessToken)
                        ))
                }
                let response: HTTPResponse
                if let streaming {
                    response = try await base.send(authorized) { head in
                        if rule.withholds(head, bound: bound, refusesToken: Self.refusesToken(head, token)) { return nil }
                        if Self.followUp(head, to: current, redirects: redirects, max: max) != nil { return nil }
                        return try streaming(head)
                    }
                } else {
                    response = try await base.send(authorized)
                }
                // Only a DPoP-bound token's proofs carry a nonce; a new nonce is one the proofs did not
                // hold (`ServerNonces.remember`), as at the provider.
                change = .refused
                if bound, let nonce = response.header("DPoP-Nonce"), !nonce.isEmpty, let proofs {
                    change = await proofs.rememberNonce(nonce, for: current.url, challenged: DPoPHandle.isNonceError(response))
                }
                return response
            },
            next: { response, current, redirects in
                Self.followUp(response, to: current, redirects: redirects, max: max)
            })
        return RetryRule.Answer(
            response: response, newNonce: bound && change == .changed && DPoPHandle.isNonceError(response),
            bound: bound, refusesToken: Self.refusesToken(response, token))
    }
}
