import LatchkeyHTTP

/// Adds a DPoP proof (RFC 9449) to every token, PAR, CIBA and revocation request. It takes up
/// server nonces: any `DPoP-Nonce` answer is remembered per origin, and a `use_dpop_nonce` error
/// with a new one asks for the one retry `RetryRule` allows. Not on the device authorization
/// request: RFC 9449 puts none there. Resource requests get their proofs (with `ath`) from
/// `AuthorizedTransport` and the session's `DPoPProofSource`.
struct DPoPAuthenticator: RequestAuthenticator {
    /// The session's key.
    public let key: DPoPKey

    /// Makes the authenticator.
    public init(key: DPoPKey) { self.key = key }

    /// The roles that get a proof.
    public static func applies(to role: EndpointRole) -> Bool {
        switch role {
        case .token, .pushedAuthorization, .revocation, .backchannelAuthentication: return true
        default: return false
        }
    }

    /// Sets the `DPoP` header, with the origin's last nonce.
    public func authenticate(_ request: inout ProviderRequest, context: RequestContext) throws(LatchkeyError) {
        guard Self.applies(to: request.role) else { return }
        // A request that presents a bound access token (Glewlwyd's revocation fallback) proves it
        // with `ath` (RFC 9449 §7.1).
        let accessToken = Self.dpopAccessToken(in: request.header("Authorization"))
        request.setHeader("DPoP", try key.proof(method: request.method, url: request.url, accessToken: accessToken,
                                                nonce: context.serverNonce(for: request.url), at: context.now,
                                                random: context.random))
    }

    /// Remembers a `DPoP-Nonce`; true for a `use_dpop_nonce` error that brought one not held
    /// before (`ServerNonces.remember`). A nonce outside the grammar is neither kept nor sent, so
    /// it cannot earn a retry either.
    public func wantsRetry(after response: HTTPResponse, to request: ProviderRequest, context: RequestContext) -> Bool {
        guard Self.applies(to: request.role), let nonce = response.header("DPoP-Nonce"), !nonce.isEmpty else { return false }
        return context.nonces.remember(nonce, for: request.url) == .changed && Self.isNonceError(response)
    }

    /// True for the two nonce errors: `400 {"error":"use_dpop_nonce"}` from an authorization server
    /// (§8) and `401` with `WWW-Authenticate: DPoP error="use_dpop_nonce"` from a resource (§9).
    public static func isNonceError(_ response: HTTPResponse) -> Bool {
        if response.status == 401 {
            return AuthenticationChallenge.hasError("use_dpop_nonce", scheme: "DPoP", in: response.header("WWW-Authenticate"))
        }
        return response.status == 400 && ResponseBody.object(response)?.string("error") == "use_dpop_nonce"
    }

    /// The token of an `Authorization: DPoP <token>` header.
    static func dpopAccessToken(in header: String?) -> String? {
        guard let header, header.utf8.count > 5, HeaderName.equal(String(header.prefix(5)), "DPoP ") else { return nil }
        return String(header.dropFirst(5))
    }
}
