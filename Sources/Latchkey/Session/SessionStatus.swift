import LatchkeyHTTP

/// What `status` reports about a profile's session, decided in one place so that every output
/// (`status` as text and JSON, `profiles`, the metrics of `status --format openmetrics`) says the
/// same: none of them works out validity, the refresh token or the binding again. Holds no token.
package struct SessionStatus: Sendable, Equatable {
    /// True when a session is stored.
    package var signedIn: Bool
    /// When the access token expires; nil when not signed in or the provider gave no expiry.
    package var accessTokenExpiresAt: Timestamp?
    /// True when the access token is valid at the time the status was taken.
    package var accessTokenValid: Bool
    /// True when a refresh token is held.
    package var refreshTokenHeld: Bool
    /// True when an ID token is held.
    package var idTokenHeld: Bool
    /// The ID token's `sub`; nil without one.
    package var subject: String?
    /// What the access token is bound to; nil when not signed in.
    package var binding: TokenBinding?
    /// The last refresh attempt recorded in the profile's lock file, failed ones too.
    package var lastRefresh: RefreshAttempt?

    /// The status of `session` (nil: not signed in) at `now`.
    package init(session: StoredSession?, lastRefresh: RefreshAttempt?, at now: Timestamp) {
        signedIn = session != nil
        accessTokenExpiresAt = session?.token.expiresAt
        accessTokenValid = session?.token.isValid(at: now) ?? false
        refreshTokenHeld = session?.token.refreshToken != nil
        idTokenHeld = session?.token.idToken != nil
        subject = session?.subject
        binding = session.map { TokenBinding($0.token) }
        self.lastRefresh = lastRefresh
    }
}
