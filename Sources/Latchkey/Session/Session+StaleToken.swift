/// Marking the stored access token as no longer good, for callers told so out of band (git's
/// credential `erase` after a server refused the token): the next `validToken` refreshes first.
extension Session {
    /// Under the store's lock, sets the stored token's expiry to now, unless the stored token is no
    /// longer `accessToken` (another process refreshed already, and its new token is kept).
    /// Nothing happens when no session is stored. With `accessToken` nil the stored token is marked
    /// whatever it is.
    public func markTokenStale(accessToken: String? = nil) async throws(LatchkeyError) {
        let store = self.store
        let now = time.now()
        do {
            try await store.withLock { () async throws -> Void in
                guard var session = try store.load() else { return }
                if let accessToken, session.token.accessToken != accessToken { return }
                if let expiresAt = session.token.expiresAt, expiresAt <= now { return }
                session.token.expiresAt = now
                try store.save(session)
            }
        } catch {
            throw Self.mapped(error)
        }
    }
}
