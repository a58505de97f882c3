import LatchkeyCrypto

/// The OIDC `at_hash`/`c_hash` value (OIDC Core §3.1.3.6): the left half of the hash of the token's
/// ASCII bytes, with the hash of the ID token's `alg`, base64url-encoded.
package enum AccessTokenHash {
    /// Computes `at_hash` for `accessToken` under `algorithm`.
    package static func compute(accessToken: String, algorithm: JWSAlgorithm) -> String {
        let digest = algorithm.hashAlgorithm.hash(Array(accessToken.utf8))
        return Base64URL.encode(digest.prefix(digest.count / 2))
    }

    /// True when `claimed` equals the computed value (compared in constant time: it is derived from a secret).
    package static func matches(_ claimed: String, accessToken: String, algorithm: JWSAlgorithm) -> Bool {
        ConstantTime.equals(Array(claimed.utf8), Array(compute(accessToken: accessToken, algorithm: algorithm).utf8))
    }
}
