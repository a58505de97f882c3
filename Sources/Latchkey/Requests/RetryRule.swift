import LatchkeyHTTP

/// The one rule for sending a request that carries a session's credentials once more, for the
/// provider's endpoints and resource servers alike (openid-client's `retryable`):
/// - once after a server nonce error that brought a new nonce (RFC 9449 §8 from an authorization
///   server, §9 from a resource server); a nonce error after that, or one without a new nonce, is
///   `nonceRequestedTwice`: the server is not converging and another attempt would loop;
/// - once after a resource server refused the access token (`401 … error="invalid_token"`,
///   RFC 6750 §3.1), with a fresh token from the `TokenSource`.
/// Each at most once per request. Transient failures are not retried here (`TransientFailure`).
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
        (bound && DPoPAuthenticator.isNonceError(head)) || (refusesToken && !tokenRetried)
    }

    /// The decision after `response`. `newNonce`: the answer brought a nonce the request did not
    /// carry (or an authenticator asked for another attempt); `bound`: the request carried a DPoP
    /// proof; `refusesToken`: a resource server refused the access token.
    mutating func next(after response: HTTPResponse, newNonce: Bool, bound: Bool,
                       refusesToken: Bool = false) throws(LatchkeyError) -> Retry? {
        let nonceError = bound && DPoPAuthenticator.isNonceError(response)
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
}
