import LatchkeyCrypto
import LatchkeyHTTP

/// A session's DPoP key with the nonces servers handed out (openid-client's `DPoPHandle`): every
/// proof a session sends is made here, for the token, PAR, CIBA and revocation requests (RFC 9449
/// §5, with the authorization server's nonce, §8) and for resource requests (§7, with `ath` and the
/// resource server's own nonce, §9), and a provider's `DPoP-Nonce` answer is taken up here (a
/// resource server's goes through the session's `DPoPProofSource`, which also keeps it in the file). Not on the
/// device authorization request: RFC 9449 puts none there. `SessionBinding` holds one for a bound
/// session; `Session` makes one for a resource request from the stored session's key.
struct DPoPHandle: Sendable {
    /// The session's key.
    let key: DPoPKey
    /// The servers' nonces, shared with every other request of the session.
    let nonces: ServerNonces
    let time: any TimeSource
    let random: any RandomSource

    /// The provider roles that get a proof.
    static func applies(to role: EndpointRole) -> Bool {
        switch role {
        case .token, .pushedAuthorization, .revocation, .backchannelAuthentication: return true
        default: return false
        }
    }

    /// Sets the `DPoP` header of a provider request, with the origin's last nonce. A request that
    /// presents a bound access token (Glewlwyd's revocation fallback) proves it with `ath` (§7.1).
    func prove(_ request: inout ProviderRequest, at now: Timestamp) throws(LatchkeyError) {
        let accessToken = Self.dpopAccessToken(in: request.header("Authorization"))
        request.setHeader(
            "DPoP",
            try key.proof(
                method: request.method, url: request.url, accessToken: accessToken,
                nonce: nonces.nonce(for: request.url), at: now, random: random))
    }

    /// Takes up a provider's `DPoP-Nonce`; true for a `use_dpop_nonce` error that brought one not
    /// held before (`ServerNonces.remember`). A nonce outside the grammar is neither kept nor sent,
    /// so it cannot earn a retry either.
    func takesUpNonce(after response: HTTPResponse, to request: ProviderRequest) -> Bool {
        guard let nonce = response.header("DPoP-Nonce"), !nonce.isEmpty else { return false }
        return nonces.remember(nonce, for: request.url) == .changed && Self.isNonceError(response)
    }

    /// A proof for sending `accessToken` with `method` to the resource at `url`, with that
    /// resource server's last nonce.
    func resourceProof(method: String, url: HTTPURL, accessToken: String) throws(LatchkeyError) -> String {
        try key.proof(
            method: method, url: url, accessToken: accessToken, nonce: nonces.nonce(for: url, from: .resourceServer),
            at: time.now(), random: random)
    }

    /// True for the two nonce errors: `400 {"error":"use_dpop_nonce"}` from an authorization server
    /// (§8) and `401` with `WWW-Authenticate: DPoP error="use_dpop_nonce"` from a resource (§9).
    static func isNonceError(_ response: HTTPResponse) -> Bool {
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
