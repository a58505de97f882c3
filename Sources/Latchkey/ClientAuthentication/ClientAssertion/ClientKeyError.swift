import LatchkeyCrypto

/// Why a `private_key_jwt` client key could not be used. Local problems: a program maps them as it
/// maps storage failures (the CLI: exit 9). Never carries key material.
public enum ClientKeyError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The key file does not exist.
    case missing(path: String)
    /// The key file has unsafe permissions or another owner, is too large, or could not be read.
    case unreadable(path: String, TokenStoreError)
    /// The file is not a private key Latchkey signs with (what was found is in the refusal).
    case refused(path: String?, PrivateKeyRefusal)
    /// The signature could not be made (the crypto library's reason).
    case signingFailed(String)

    /// One line for an error message.
    public var description: String {
        switch self {
        case .missing(let path): return "client key file \(path) does not exist"
        case .unreadable(let path, let error): return "client key file \(path) cannot be used: \(error.description)"
        case .refused(let path, let refusal):
            return "client key" + (path.map { " file \($0)" } ?? "") + " refused: \(refusal.description)"
        case .signingFailed(let why): return "signing the client assertion failed: \(why)"
        }
    }
}
