/// Why a PEM private key was refused, with what was found. Never carries key material.
public enum PrivateKeyRefusal: Error, Sendable, Equatable, CustomStringConvertible {
    /// No `-----BEGIN …-----` line at all.
    case notPEM
    /// Text other than whitespace before the BEGIN line.
    case leadingData(byteCount: Int)
    /// Text other than whitespace after the END line (a second key, a certificate, garbage),
    /// or bytes after the DER structure inside the base64.
    case trailingData(byteCount: Int)
    /// The PEM armour is broken: missing END line, mismatched labels, bad base64, empty body.
    case malformedPEM(String)
    /// A label that is not one of the three private-key labels (e.g. "CERTIFICATE", "PUBLIC KEY").
    case unsupportedLabel(String)
    /// The key is passphrase-protected ("ENCRYPTED PRIVATE KEY", or `Proc-Type: 4,ENCRYPTED`).
    case encrypted(label: String)
    /// The DER inside is not the structure its label announces.
    case formatMismatch(label: String, found: PrivateKeyFormat)
    /// The DER is not a private key structure mbedTLS can read; carries what was wrong.
    case malformedDER(String)
    /// A PKCS#8 key of an algorithm other than rsaEncryption or id-ecPublicKey (dotted OID).
    case unsupportedAlgorithm(oid: String)
    /// An EC key on a curve other than P-256 or P-384 (mbedTLS's curve name, e.g. "secp521r1").
    case unsupportedCurve(String)
    /// An RSA modulus outside the accepted range.
    case rsaModulusSize(bits: Int, minimum: Int, maximum: Int)
    /// The parts of the key do not belong together (mbedTLS's consistency check, or Q ≠ d·G).
    case inconsistentKey(String)

    /// One line for an error message.
    public var description: String {
        switch self {
        case .notPEM: return "no PEM BEGIN line found"
        case let .leadingData(n): return "\(n) bytes of text before the PEM BEGIN line"
        case let .trailingData(n): return "\(n) bytes of data after the key"
        case let .malformedPEM(why): return "malformed PEM: \(why)"
        case let .unsupportedLabel(label):
            return "PEM label \"\(label)\" is not a private key (expected PRIVATE KEY, EC PRIVATE KEY or RSA PRIVATE KEY)"
        case let .encrypted(label): return "the \"\(label)\" key is encrypted; decrypt it first"
        case let .formatMismatch(label, found): return "PEM label \"\(label)\" holds a \(found.pemLabel) structure"
        case let .malformedDER(why): return "malformed key structure: \(why)"
        case let .unsupportedAlgorithm(oid): return "unsupported key algorithm \(oid) (only RSA and EC)"
        case let .unsupportedCurve(name): return "unsupported curve \(name) (only P-256 and P-384)"
        case let .rsaModulusSize(bits, minimum, maximum): return "RSA modulus is \(bits) bits, accepted \(minimum)…\(maximum)"
        case let .inconsistentKey(why): return "inconsistent key: \(why)"
        }
    }
}
