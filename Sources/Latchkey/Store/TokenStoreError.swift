import LatchkeyHTTP

#if canImport(Glibc)
    import Glibc
#endif

/// Why the token store could not do what was asked. Every case is a local storage failure:
/// the CLI maps all of them to exit code 9 (cli.md). The description is one line, safe for stderr,
/// and never contains key material or tokens.
public enum TokenStoreError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The file is not a token file, or its authenticated payload is not a session.
    case corrupt(path: String, reason: String)
    /// The file ends before its header or its authentication tag does.
    case truncated(path: String)
    /// AES-GCM authentication failed. A wrong key and a modified file look the same to GCM,
    /// so the message names both.
    case wrongKeyOrTampered(path: String)
    /// The file was written for another profile (its header or payload names a different one).
    case profileMismatch(path: String, expected: String, found: String)
    /// The file's format version is newer than this build reads.
    case unsupportedVersion(path: String, found: UInt8, supported: UInt8)
    /// The file was written with a different key source than the one configured for the profile.
    case keySourceMismatch(path: String, file: String, configured: String)
    /// The file is larger than any token file this build writes.
    case tooLarge(path: String, size: Int, limit: Int)
    /// A file or folder is group/world-accessible, a symbolic link, or not a regular file.
    case unsafePermissions(path: String, reason: String)
    /// A file or folder is owned by another user than the one running latchkey.
    case wrongOwner(path: String, owner: UInt32, expected: UInt32)
    /// The key could not be obtained (missing key file, missing `$CREDENTIALS_DIRECTORY`, short key).
    case keyUnavailable(String)
    /// The profile uses a passphrase and none was supplied.
    case passphraseRequired
    /// The profile name cannot be used as a file name.
    case invalidProfileName(String)
    /// A system call failed; `errno` is the C error number (ENOSPC reads "disk full").
    case io(path: String, operation: String, errno: Int32)
    /// Taking the `flock` on the lock file failed.
    case lockFailed(path: String, errno: Int32)
    /// The space for the token file that a refresh would write could not be reserved (`errno`,
    /// ENOSPC for a full disk). It is reserved before the refresh request is sent, so nothing was
    /// sent and the stored session is unchanged.
    case reservationFailed(path: String, errno: Int32)

    /// One line for stderr.
    public var description: String {
        switch self {
        case let .corrupt(path, reason):
            return "token file \(path) is corrupt: \(reason)"
        case let .truncated(path):
            return "token file \(path) is truncated"
        case let .wrongKeyOrTampered(path):
            return "cannot decrypt token file \(path): wrong key or tampered file"
        case let .profileMismatch(path, expected, found):
            return "token file \(path) belongs to profile '\(found)', not '\(expected)'"
        case let .unsupportedVersion(path, found, supported):
            return
                "token file \(path) has format version \(found) but this latchkey reads version \(supported): written by a newer latchkey"
        case let .keySourceMismatch(path, file, configured):
            return "token file \(path) is encrypted with key source '\(file)' but the profile uses '\(configured)'"
        case let .tooLarge(path, size, limit):
            return "token file \(path) is \(size) bytes, more than the \(limit)-byte limit"
        case let .unsafePermissions(path, reason):
            return "refusing \(path): \(reason)"
        case let .wrongOwner(path, owner, expected):
            return "refusing \(path): it belongs to uid \(owner), and latchkey runs as uid \(expected)"
        case let .keyUnavailable(reason):
            return "token key unavailable: \(reason)"
        case .passphraseRequired:
            return "a passphrase is required for this profile"
        case let .invalidProfileName(name):
            return "invalid profile name '\(name)': use 1-64 letters, digits, '.', '_' or '-', not starting with '.'"
        case let .io(path, operation, code):
            return "cannot \(operation) \(path): \(Self.errnoText(code))"
        case let .lockFailed(path, code):
            return "cannot lock \(path): \(Self.errnoText(code))"
        case let .reservationFailed(path, code):
            return "cannot reserve space for \(path): \(Self.errnoText(code)); the refresh was not attempted and the session is intact"
        }
    }

    /// Human text for an errno, with the cases users meet spelled plainly.
    static func errnoText(_ code: Int32) -> String { ErrnoText.describe(code) }
}
