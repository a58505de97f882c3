/// Where the key that encrypts a profile's token file comes from (`--key-source`, cli.md).
/// Fixed at a profile's first login; the token file header records which one was used.
public enum KeySource: Sendable, Equatable, Hashable, CustomStringConvertible {
    /// The default: `<state-dir>/machine.key`, 32 random bytes made on first use, bound by HKDF to
    /// `/etc/machine-id` so a copied token file does not open on another machine.
    case machine
    /// A passphrase stretched with PBKDF2-HMAC-SHA-256 (≥ 600,000 iterations, random salt).
    case passphrase
    /// A systemd credential: `$CREDENTIALS_DIRECTORY/latchkey.key` (`LoadCredential=` or
    /// `LoadCredentialEncrypted=`, which `systemd-creds` can seal to a TPM).
    case credential
    /// An explicit key file of at least 32 bytes.
    case file(path: String)

    /// The one-byte identifier written in the token file header (docs/token-file.md).
    package var kind: Kind {
        switch self {
        case .machine: return .machine
        case .passphrase: return .passphrase
        case .credential: return .credential
        case .file: return .file
        }
    }

    /// The header's key-source identifier; the path of `.file` is not part of the file.
    package enum Kind: UInt8, Sendable, Equatable, Hashable, CustomStringConvertible {
        /// `machine`.
        case machine = 1
        /// `passphrase`.
        case passphrase = 2
        /// `credential`.
        case credential = 3
        /// `file:PATH`.
        case file = 4

        /// The CLI spelling without a path: `machine`, `passphrase`, `credential`, `file`.
        package var description: String {
            switch self {
            case .machine: return "machine"
            case .passphrase: return "passphrase"
            case .credential: return "credential"
            case .file: return "file"
            }
        }
    }

    /// Parses the stored spelling `machine|passphrase|credential|file:PATH`; nil for anything else.
    public init?(name: String) {
        switch name {
        case "machine": self = .machine
        case "passphrase": self = .passphrase
        case "credential": self = .credential
        default:
            guard name.hasPrefix("file:") else { return nil }
            let path = String(name.dropFirst("file:".count))
            guard !path.isEmpty, !path.utf8.contains(0) else { return nil }
            self = .file(path: path)
        }
    }

    /// The spelling profiles/NAME.json stores (`machine`, `passphrase`, `credential`, `file:PATH`), the inverse of `init(name:)`.
    public var name: String {
        switch self {
        case .machine: return "machine"
        case .passphrase: return "passphrase"
        case .credential: return "credential"
        case let .file(path): return "file:" + path
        }
    }

    /// Same as `name`.
    public var description: String { name }
}
