/// The three unencrypted private-key encodings read from PEM (RFC 7468 §10 and §11, RFC 5915).
public enum PrivateKeyFormat: String, Sendable, Hashable {
    /// PKCS#8 `PrivateKeyInfo` (RFC 5208), label "PRIVATE KEY": RSA or EC.
    case pkcs8
    /// SEC1 `ECPrivateKey` (RFC 5915), label "EC PRIVATE KEY".
    case sec1
    /// PKCS#1 `RSAPrivateKey` (RFC 8017 §A.1.2), label "RSA PRIVATE KEY".
    case pkcs1

    /// The PEM label this encoding is armoured with.
    public var pemLabel: String {
        switch self {
        case .pkcs8: return "PRIVATE KEY"
        case .sec1: return "EC PRIVATE KEY"
        case .pkcs1: return "RSA PRIVATE KEY"
        }
    }

    /// The format a PEM label announces, or nil for any other label.
    init?(pemLabel: String) {
        switch pemLabel {
        case "PRIVATE KEY": self = .pkcs8
        case "EC PRIVATE KEY": self = .sec1
        case "RSA PRIVATE KEY": self = .pkcs1
        default: return nil
        }
    }
}
