/// The public half of a `SigningKey`: one of the verify-side key types.
public enum PublicKey: Sendable, Equatable {
    /// An RSA public key.
    case rsa(RSAPublicKey)
    /// An EC public key.
    case ec(ECPublicKey)
}
