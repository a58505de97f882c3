import Latchkey

/// The access token, two ways: through `TokenSource` (refreshes when needed), and the hot path.
func showToken(_ session: Session) async throws {
    let source: any TokenSource = session
    let token = try await source.token()
    print("Token type \(token.tokenType), expires \(token.expiresAt.map { "\($0)" } ?? "never")")

    // Synchronous: the stored token if it is good for another 60 s, with no network and no lock;
    // nil means it needs a refresh, which `source.token()` does.
    if let cached = try session.cachedToken(minTTL: 60) {
        print("Cached token is the same: \(cached.accessToken == token.accessToken)")
    }
}
