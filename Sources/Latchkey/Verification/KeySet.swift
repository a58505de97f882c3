import LatchkeyJOSE

/// The one-method seam for verification keys (go-oidc's KeySet): verify a JWS's signature and
/// return the key that did it. `RemoteKeySet` fetches and caches a JWKS; `StaticKeySet` holds fixed keys.
public protocol KeySet: Sendable {
    /// Verifies `jws` with one of the keys, accepting only `allowed` algorithms.
    /// Throws `LatchkeyError` (`.verification` for bad tokens, `.network`/`.protocolViolation` for JWKS fetches).
    func verify(_ jws: JWS, allowed: Set<JWSAlgorithm>) async throws(LatchkeyError) -> JWK
}

/// Fixed keys, e.g. a JWKS file given to `latchkey verify --jwks FILE`, or keys in tests.
package struct StaticKeySet: KeySet {
    /// The keys.
    package let keys: JWKSet

    /// Wraps a key set.
    package init(_ keys: JWKSet) { self.keys = keys }

    /// Verifies with the fixed keys; no network.
    package func verify(_ jws: JWS, allowed: Set<JWSAlgorithm>) async throws(LatchkeyError) -> JWK {
        do { return try JWSVerifier.verify(jws, keys: keys, allowedAlgorithms: allowed) } catch { throw .verification(.jose(error)) }
    }
}
