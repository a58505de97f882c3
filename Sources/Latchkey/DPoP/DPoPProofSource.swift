import LatchkeyCrypto
import LatchkeyHTTP

/// Where `AuthorizedTransport` gets proofs for a DPoP-bound access token, and tells the nonces
/// resource servers hand out. `Session` is one; a program holding its own key can be another.
public protocol DPoPProofSource: Sendable {
    /// A proof (with `ath`) for sending `accessToken` with `method` to `url`.
    func dpopProof(method: String, url: HTTPURL, accessToken: String) async throws(LatchkeyError) -> String
    /// Remembers the `DPoP-Nonce` that `url`'s server sent, for the next proof to it, and says
    /// whether it is one not held before (`ServerNonces.remember`): only that earns a retry.
    @discardableResult
    func rememberNonce(_ nonce: String, for url: HTTPURL) async -> NonceChange
    /// Remembers it; `challenged` when it came with a `use_dpop_nonce` challenge, the answer it
    /// changed (a source may keep such a nonce where it keeps others only once).
    @discardableResult
    func rememberNonce(_ nonce: String, for url: HTTPURL, challenged: Bool) async -> NonceChange
}

extension DPoPProofSource {
    /// A source that makes no difference between the two keeps every nonce alike.
    @discardableResult
    public func rememberNonce(_ nonce: String, for url: HTTPURL, challenged: Bool) async -> NonceChange {
        await rememberNonce(nonce, for: url)
    }
}

extension StoredSession {
    /// A proof for a resource request with this session's access token, with the nonce remembered
    /// for `url`'s origin as a resource server (`NonceHolder.resourceServer`; else the one kept
    /// under the bare origin, as files written before the split keep it), or `nonce`. Reading only
    /// the bare origin gave a resource the authorization server's nonce when both share an origin.
    /// Synchronous and offline: `latchkey token --format header`
    /// and `proof` make one from the file alone. Throws `.tokenBinding(.missingKey)` when the
    /// session is not DPoP-bound.
    public func dpopProof(
        method: String, url: HTTPURL, nonce: String? = nil, at now: Timestamp,
        random: some RandomSource
    ) throws(LatchkeyError) -> String {
        guard let dpop, TokenBinding(token) == .dpop else { throw .tokenBinding(.missingKey) }
        return try dpop.key(random: random).proof(
            method: method, url: url, accessToken: token.accessToken,
            nonce: nonce ?? dpop.nonces[NonceHolder.resourceServer.key(url.origin)] ?? dpop.nonces[url.origin],
            at: now, random: random)
    }
}
