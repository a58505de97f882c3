import LatchkeyCrypto

/// The JWS signature algorithms Latchkey verifies (RFC 7518 §3). Only asymmetric ones: there is no
/// shared-secret path, so an HS* token can never be checked against a public key.
public enum JWSAlgorithm: String, Sendable, CaseIterable, Hashable {
    /// RSASSA-PKCS1-v1_5 with SHA-256.
    case rs256 = "RS256"
    /// RSASSA-PKCS1-v1_5 with SHA-384.
    case rs384 = "RS384"
    /// RSASSA-PKCS1-v1_5 with SHA-512.
    case rs512 = "RS512"
    /// RSASSA-PSS with SHA-256 and MGF1-SHA-256.
    case ps256 = "PS256"
    /// RSASSA-PSS with SHA-384 and MGF1-SHA-384.
    case ps384 = "PS384"
    /// RSASSA-PSS with SHA-512 and MGF1-SHA-512.
    case ps512 = "PS512"
    /// ECDSA on P-256 with SHA-256.
    case es256 = "ES256"
    /// ECDSA on P-384 with SHA-384.
    case es384 = "ES384"
    /// ECDSA on P-521 with SHA-512.
    case es512 = "ES512"

    /// The digest the algorithm signs (also the one `at_hash` uses).
    public var hashAlgorithm: HashAlgorithm {
        switch self {
        case .rs256, .ps256, .es256: return .sha256
        case .rs384, .ps384, .es384: return .sha384
        case .rs512, .ps512, .es512: return .sha512
        }
    }

    /// The JWK `kty` a verification key must have.
    public var keyType: String {
        switch self {
        case .es256, .es384, .es512: return "EC"
        default: return "RSA"
        }
    }

    /// The curve an ECDSA algorithm is bound to (RFC 7518 §3.4), nil for RSA.
    public var curve: ECCurve? {
        switch self {
        case .es256: return .p256
        case .es384: return .p384
        case .es512: return .p521
        default: return nil
        }
    }
}
