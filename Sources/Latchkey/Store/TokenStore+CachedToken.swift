import LatchkeyHTTP

extension TokenStore {
    /// The stored access token when it is valid for at least `minTTL` seconds at `now`; nil when a
    /// refresh is needed. Reads the store only — no lock, no network, no threads — so `token` with a
    /// cached token stays a file read. Throws `.notSignedIn` when nothing is stored.
    public func cachedToken(minTTL: Double, at now: Timestamp) throws(LatchkeyError) -> Token? {
        try cachedSession(minTTL: minTTL, at: now)?.token
    }

    /// `cachedToken`, with the whole stored session: a DPoP-bound one signs its proofs from the
    /// file alone (`StoredSession.dpopProof`).
    public func cachedSession(minTTL: Double, at now: Timestamp) throws(LatchkeyError) -> StoredSession? {
        try cachedSession(margin: .seconds(minTTL), at: now)
    }

    /// `cachedSession(minTTL:at:)` with the margin as a `RefreshMargin` (`.standard`: 60 s, at
    /// most half the lifetime of a token that lives less than 60 s).
    public func cachedSession(margin: RefreshMargin, at now: Timestamp) throws(LatchkeyError) -> StoredSession? {
        let session: StoredSession?
        do { session = try load() } catch { throw .storage(error) }
        guard let session else { throw .notSignedIn }
        return session.isFresh(at: now, margin: margin) ? session : nil
    }
}
