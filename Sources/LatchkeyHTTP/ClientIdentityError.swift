/// Why a client certificate and key cannot be used. Raised when a `TLSClientIdentity` is made, before
/// anything is sent: these are problems with the local files, not with a server (a server refusing the
/// handshake is an `HTTPError`).
public enum ClientIdentityError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The certificate chain does not parse as PEM X.509 (or holds no certificate).
    case unreadableCertificate(reason: String)
    /// The private key does not parse as PEM PKCS#8, SEC1 or PKCS#1.
    case unreadableKey(reason: String)
    /// The private key is encrypted; it must be stored decrypted (no passphrase prompt at connect time).
    case encryptedKey
    /// The key parsed but is not RSA of at least 2048 bits or EC on P-256 or P-384. `algorithm` is
    /// "RSA" or the curve's name ("secp521r1"); `bits` is the modulus or field size.
    case unsupportedKey(algorithm: String, bits: Int)
    /// The private key is not the one of the leaf (first) certificate.
    case keyDoesNotMatchCertificate
    /// The leaf certificate's key usage or extended key usage does not allow TLS client authentication.
    case notForClientAuthentication(reason: String)
    /// The leaf certificate's validity has not started at the time given.
    case notYetValid(notBefore: Timestamp)
    /// The leaf certificate's validity has ended at the time given.
    case expired(notAfter: Timestamp)

    public var description: String {
        switch self {
        case .unreadableCertificate(let r): return "client certificate unreadable: \(r)"
        case .unreadableKey(let r): return "client private key unreadable: \(r)"
        case .encryptedKey: return "client private key is encrypted; store it decrypted"
        case .unsupportedKey(let a, let b):
            return "client private key unsupported: \(a) \(b) bits (RSA needs at least 2048 bits; EC must be P-256 or P-384)"
        case .keyDoesNotMatchCertificate: return "client private key does not match the client certificate"
        case .notForClientAuthentication(let r): return "client certificate is not for TLS client authentication: \(r)"
        case .notYetValid(let t): return "client certificate not valid before \(t)"
        case .expired(let t): return "client certificate expired at \(t)"
        }
    }
}
