/// A P-256 signing key with SHA-256 (ES256): `ECPrivateKey` on one curve, kept for the callers
/// that store the 32-byte scalar. Signatures are deterministic (RFC 6979).
public struct P256PrivateKey: Sendable {
    /// The general key this wraps.
    public let key: ECPrivateKey

    /// The matching public key.
    public var publicKey: ECPublicKey { key.publicKey }

    /// Generates a fresh key from `random`.
    public init(random: some RandomSource) throws(CryptoError) {
        key = try ECPrivateKey(curve: .p256, random: random)
    }

    /// A key from its 32-byte private scalar d (e.g. one stored earlier via `rawScalar`).
    public init(rawScalar: SecretBytes, random: some RandomSource) throws(CryptoError) {
        key = try ECPrivateKey(curve: .p256, rawScalar: rawScalar, random: random)
    }

    /// The 32-byte private scalar, for persisting the key (keep it encrypted).
    public var rawScalar: SecretBytes { key.rawScalar }

    /// ECDSA over SHA-256 of `message`, deterministic per RFC 6979, as raw r‖s (64 bytes).
    public func signature(for message: [UInt8]) throws(CryptoError) -> [UInt8] {
        try key.signature(for: message, hash: .sha256)
    }
}
