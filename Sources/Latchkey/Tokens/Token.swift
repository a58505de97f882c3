import LatchkeyHTTP

/// The tokens from one successful token-endpoint exchange, as a plain value (RFC 6749 §5.1).
public struct Token: Sendable, Equatable {
    /// The access token itself. Secret.
    public var accessToken: String
    /// `Bearer` (normalised; providers send either case) or `DPoP`.
    public var tokenType: String
    /// The refresh token, if the server issued one. Secret.
    public var refreshToken: String?
    /// When the access token expires; nil when the server did not say.
    public var expiresAt: Timestamp?
    /// Granted scope, space-separated, when the server said.
    public var scope: String?
    /// The raw compact ID token, only ever stored after it was verified.
    public var idToken: String?

    /// Makes a token value.
    public init(
        accessToken: String, tokenType: String = "Bearer", refreshToken: String? = nil,
        expiresAt: Timestamp? = nil, scope: String? = nil, idToken: String? = nil
    ) {
        self.accessToken = accessToken
        self.tokenType = tokenType
        self.refreshToken = refreshToken
        self.expiresAt = expiresAt
        self.scope = scope
        self.idToken = idToken
    }

    /// True when the access token is still good for at least `minTTL` seconds at `now`.
    /// A token without an expiry is treated as valid (the server gave no reason to refresh).
    public func isValid(at now: Timestamp, minTTL: Double = 0) -> Bool {
        guard let expiresAt else { return true }
        return expiresAt.timeIntervalSince(now) > minTTL
    }
}
