import LatchkeyHTTP

/// The one rule for sending a request that carries a session's credentials once more, for the
/// provider's endpoints and resource servers alike (openid-client's `retryable`):
/// - once after a server nonce error that brought a new nonce (RFC 9449 §8 from an authorization
///   server, §9 from a resource server); a nonce error after that, or one without a new nonce, is
///   `nonceRequestedTwice`: the server is not converging and another attempt would loop;
/// - once after a resource server refused the access token (`401 … error="invalid_token"`,
///   RFC 6750 §3.1), with a fresh token from the `TokenSource`.
/// Each at most once per request. Transient failures are not retried here (`TransientFailure`).
/// `sending` is the one loop that applies it, for `SessionBinding.attempt` and `AuthorizedTransport`.
struct RetryRule: Sendable {
    /// What to do before sending again.
    enum Retry: Equatable {
        /// Send again: the authenticators now hold the server's new nonce.
        case withNonce
        /// Get a different token from the source, then send again.
        case withFreshToken
    }

    /// The endpoint role, named in `nonceRequestedTwice`.
    let role: EndpointRole
    private(set) var nonceRetried = false
    private(set) var tokenRetried = false

    init(role: EndpointRole) { self.role = role }

    /// Whether an answer with this head would be sent again or thrown rather than handed to the
    /// caller (so a streaming caller is never offered its body).
    func withholds(_ head: HTTPResponse, bound: Bool, refusesToken: Bool) -> Bool {
        (bound && DPoPHandle.isNonceError(head)) || (refusesToken && !tokenRetried)
    }

    /// The decision after `response`. `newNonce`: the answer brought a nonce the request did not
    /// carry (or an authenticator asked for another attempt); `bound`: the request carried a DPoP
    /// proof; `refusesToken`: a resource server refused the access token.
    mutating func next(
        after response: HTTPResponse, newNonce: Bool, bound: Bool,
        refusesToken: Bool = false
    ) throws(LatchkeyError) -> Retry? {
        let nonceError = bound && DPoPHandle.isNonceError(response)
        if newNonce && !nonceRetried {
            nonceRetried = true
            return .withNonce
        }
        if nonceError { throw .tokenBinding(.nonceRequestedTwice(role)) }
        if refusesToken && !tokenRetried {
            tokenRetried = true
            return .withFreshToken
        }
        return nil
    }

    /// What one attempt brought, for the decision.
    struct Answer {
        var response: HTTPResponse
        /// The answer brought a nonce the binding did not hold (`NonceChange.changed`), or an
        /// authenticator asked for another attempt.
        var newNonce: Bool
        /// The request carried a DPoP proof.
        var bound: Bool
        /// A resource server refused the access token.
        var refusesToken: Bool = false
    }

    /// The one loop that sends a request carrying a session's credentials: `attempt` sends it,
    /// shown the rule as it stands (so a streaming attempt can withhold a head the rule would send
    /// again), and after each answer the rule decides: hand it back, send again now that the new
    /// nonce is held, or first `renew` the token. `nonceRequestedTwice` is thrown as `refusal` makes it.
    static func sending<Failure: Error>(
        _ role: EndpointRole, attempt: (RetryRule) async throws(Failure) -> Answer,
        renew: () async throws(Failure) -> Void, refusal: (LatchkeyError) -> Failure
    )
        async throws(Failure) -> HTTPResponse
    {
        var rule = RetryRule(role: role)
        while true {
            let answer = try await attempt(rule)
            let retry: Retry?
            do {
                retry = try rule.next(
                    after: answer.response, newNonce: answer.newNonce, bound: answer.bound,
                    refusesToken: answer.refusesToken)
            } catch { throw refusal(error) }
            switch retry {
            case nil: return answer.response
            case .withNonce: continue
            case .withFreshToken: try await renew()
            }
        }
    }
}
