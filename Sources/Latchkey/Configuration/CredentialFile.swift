import Glibc
import LatchkeyCrypto
import LatchkeyHTTP
import LatchkeyJOSE

/// A bearer credential that another program keeps in a file: a JWT bearer assertion (RFC 7523
/// §2.1), a ready-made client assertion (§2.2), a token to exchange (RFC 8693). A Kubernetes
/// projected service-account token or a SPIFFE JWT-SVID is rotated in place by its issuer, so the
/// file is read at each use, never copied and never logged.
///
/// The file follows the key-file rules (`OwnerOnlyFile`): a regular file owned by the effective
/// user with no group or other permission bits, at most 64 KiB, a symbolic link followed to the
/// file it leads to, the bytes read zeroed. It holds one token on one line; one trailing newline
/// (`\n` or `\r\n`) is ignored.
public struct CredentialFile: Sendable, Equatable {
    /// The file.
    public let path: String
    /// Larger than any token a server hands out.
    public static let limit = OwnerOnlyFile.defaultLimit

    /// A credential read from `path`.
    public init(path: String) { self.path = path }

    /// The one token the file holds, read now: printable ASCII without spaces (RFC 6749 §A.12's
    /// `VSCHAR`), on one line.
    public func token() throws(LatchkeyError) -> String {
        // The one reader of the file rule (`CredentialFileReader`); here its answers become
        // the problems a library user catches.
        do {
            return try CredentialFileReader.read(path, as: .token, limit: Self.limit)
        } catch {
            switch error {
            case .unreadable(_, let code) where code == ENOENT: throw .credentialFile(.missing(path: path))
            case .unreadable(_, let code):
                throw .credentialFile(.unreadable(path: path, .io(path: path, operation: "read", errno: code)))
            case .refused(let refusal): throw .credentialFile(.unreadable(path: path, refusal))
            case .empty, .moreThanOneLine, .notAToken, .notAJWT: throw .credentialFile(.notOneToken(path: path))
            }
        }
    }

    /// The JWT the file holds, read now (`token()`), refused when it is not a JWT (compact JWS or
    /// JWE serialisation) or when its `exp`, if readable, is not after `now`. Nothing is verified:
    /// the server that takes it does that.
    public func jwt(at now: Timestamp) throws(LatchkeyError) -> String {
        let token = try token()
        guard let claims = Self.claims(of: token) else { throw .credentialFile(.notAJWT(path: path)) }
        if let exp = claims["exp"]?.int64Value, exp <= now.epochSeconds {
            throw .credentialFile(.expired(path: path, expiredAt: exp))
        }
        return token
    }

    /// The claims of a compact JWS; an empty object for a compact JWE (five parts, claims not
    /// readable); nil when `token` is neither.
    static func claims(of token: String) -> JSONObject? {
        let parts = token.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.allSatisfy({ $0.allSatisfy(Self.isBase64URL) }) else { return nil }
        if parts.count == 5, !parts[0].isEmpty, (try? header(parts[0])) != nil { return JSONObject() }
        guard parts.count == 3, !parts[0].isEmpty, !parts[1].isEmpty, (try? header(parts[0])) != nil else { return nil }
        do { return try JSONParser().parseObject(Base64URL.decode(parts[1])) } catch { return nil }
    }

    private static func header(_ part: Substring) throws -> JSONObject {
        try JSONParser().parseObject(Base64URL.decode(part))
    }

    private static func isBase64URL(_ c: Character) -> Bool {
        guard let a = c.asciiValue else { return false }
        return (a >= 0x41 && a <= 0x5A) || (a >= 0x61 && a <= 0x7A) || (a >= 0x30 && a <= 0x39) || a == 0x2D || a == 0x5F
    }

    /// The `sub` claim of the JWT the file holds, when readable (a JWT bearer session's subject).
    static func subject(of token: String) -> String? { claims(of: token)?["sub"]?.stringValue }
}

/// Why a `CredentialFile` could not be used. Never carries the credential.
public enum CredentialFileProblem: Error, Sendable, Equatable, CustomStringConvertible {
    /// The file does not exist.
    case missing(path: String)
    /// The file has unsafe permissions or another owner, is too large, or could not be read.
    case unreadable(path: String, TokenStoreError)
    /// The file is empty, holds more than one line, or a line with spaces or control characters.
    case notOneToken(path: String)
    /// A JWT is required and the file holds something else.
    case notAJWT(path: String)
    /// The JWT's `exp` (seconds since the epoch) has passed: nothing was sent.
    case expired(path: String, expiredAt: Int64)

    /// The file.
    public var path: String {
        switch self {
        case .missing(let p), .unreadable(let p, _), .notOneToken(let p), .notAJWT(let p), .expired(let p, _): return p
        }
    }

    /// What the caller should do: fix the file (storage), fix its content (configuration), or
    /// get a new one from its issuer (sign in again).
    public var category: LatchkeyError.Category {
        switch self {
        case .missing, .unreadable: return .storage
        case .notOneToken, .notAJWT: return .configuration
        case .expired: return .signInRequired
        }
    }

    /// A stable short name.
    public var code: String {
        switch self {
        case .missing, .unreadable: return "storage_error"
        case .notOneToken, .notAJWT: return "credential_file_malformed"
        case .expired: return "credential_file_expired"
        }
    }

    /// One line.
    public var description: String {
        switch self {
        case .missing(let path): return "credential file \(path) does not exist"
        case .unreadable(let path, let error): return "credential file \(path) cannot be used: \(error.description)"
        case .notOneToken(let path): return "credential file \(path) must hold one token on one line"
        case .notAJWT(let path): return "credential file \(path) does not hold a JWT"
        case .expired(let path, let exp): return "the JWT in \(path) expired at \(RFC3339.format(epochSeconds: exp))"
        }
    }
}
