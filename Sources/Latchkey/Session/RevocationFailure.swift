/// Which token a revocation request names (RFC 7009 §2.1 `token_type_hint`).
public enum TokenKind: String, Sendable, Equatable {
    /// The access token.
    case accessToken = "access_token"
    /// The refresh token.
    case refreshToken = "refresh_token"

    /// How a sentence names it.
    public var spokenName: String { self == .refreshToken ? "refresh token" : "access token" }
}

/// Why a token was not revoked at logout. Logout goes on regardless; the caller reports these.
public enum RevocationFailure: Sendable, CustomStringConvertible {
    /// The provider advertises no revocation endpoint, and none was configured.
    case noEndpoint(TokenKind)
    /// The configured revocation endpoint is not an https URL (http only for loopback).
    case insecureEndpoint(TokenKind, endpoint: String)
    /// The endpoint answered with an error.
    case refused(TokenKind, OAuthError)
    /// The request could not be made (network, TLS, configuration).
    case failed(TokenKind, LatchkeyError)
    /// The stored session could not be read, so nothing could be revoked (it is deleted anyway).
    case unreadableSession(LatchkeyError)

    /// One line.
    public var description: String {
        switch self {
        case .noEndpoint(let kind): return "not revoking the \(kind.spokenName): the provider has no revocation endpoint"
        case .insecureEndpoint(let kind, let endpoint):
            return "not revoking the \(kind.spokenName): revocation endpoint \(endpoint) is not https"
        case .refused(let kind, let e): return "revoking the \(kind.spokenName) failed: \(e.description)"
        case .failed(let kind, let e): return "revoking the \(kind.spokenName) failed: \(e.message)"
        case .unreadableSession(let e): return "could not read the stored session: \(e.message)"
        }
    }
}
