import LatchkeyCrypto

/// What a DPoP-bound session keeps in the encrypted token file, and nowhere else: the key's
/// private scalar and the last nonce each server handed out (the most recent origins only).
package struct DPoPBinding: Sendable, Equatable {
    /// The P-256 private scalar (32 bytes). Secret.
    package var privateScalar: SecretBytes
    /// Origin → the last `DPoP-Nonce` it sent, oldest first, at most `RecentNonces.limit` origins.
    package var nonces: RecentNonces

    /// Makes a value.
    package init(privateScalar: SecretBytes, nonces: RecentNonces = RecentNonces()) {
        self.privateScalar = privateScalar
        self.nonces = nonces
    }

    /// The binding of `key`.
    package init(key: DPoPKey, nonces: RecentNonces = RecentNonces()) {
        self.init(privateScalar: key.rawScalar, nonces: nonces)
    }

    /// The key, ready to sign.
    package func key(random: some RandomSource) throws(LatchkeyError) -> DPoPKey {
        try DPoPKey(rawScalar: privateScalar, random: random)
    }

    /// Equal scalars (compared in constant time) and nonces.
    package static func == (a: DPoPBinding, b: DPoPBinding) -> Bool {
        ConstantTime.equals(a.privateScalar.bytes, b.privateScalar.bytes) && a.nonces == b.nonces
    }
}
