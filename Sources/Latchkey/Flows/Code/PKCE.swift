import LatchkeyCrypto
import LatchkeyJOSE

/// A PKCE pair (RFC 7636), S256 only: `plain` gives no protection against a leaked code and is never sent.
package struct PKCE: Sendable {
    /// The secret verifier: 43–128 characters of the unreserved set, sent with the token request.
    package let verifier: String
    /// `BASE64URL(SHA256(verifier))`, sent with the authorization request.
    package let challenge: String
    /// Always `S256`.
    package var method: String { "S256" }

    /// A fresh pair from `random`: 32 random bytes give a 43-character verifier (256 bits).
    package init(random: any RandomSource) {
        // Base64url of random bytes is always 43 unreserved characters, so no validation is needed.
        self.init(checkedVerifier: Base64URL.encode(random.bytes(32)))
    }

    /// A pair for a known verifier (tests, RFC 7636 Appendix B); the verifier must be 43–128 unreserved characters.
    package init(verifier: String) throws(PKCEError) {
        guard (43...128).contains(verifier.utf8.count) else { throw .invalidVerifier }
        let unreserved = verifier.utf8.allSatisfy { c in
            (c >= 0x41 && c <= 0x5A) || (c >= 0x61 && c <= 0x7A) || (c >= 0x30 && c <= 0x39)
                || c == 0x2D || c == 0x2E || c == 0x5F || c == 0x7E
        }
        guard unreserved else { throw .invalidVerifier }
        self.init(checkedVerifier: verifier)
    }

    private init(checkedVerifier verifier: String) {
        self.verifier = verifier
        self.challenge = Base64URL.encode(HashAlgorithm.sha256.hash(Array(verifier.utf8)))
    }
}

/// A PKCE verifier that breaks RFC 7636 §4.1.
package enum PKCEError: Error, Sendable, Equatable {
    /// Not 43–128 characters of `[A-Za-z0-9-._~]`.
    case invalidVerifier
}
