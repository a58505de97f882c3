/// Where a profile's session lives. The encrypted file (`EncryptedFileTokenStore`) is the default;
/// library users can bring their own (a database row, a secret manager).
///
/// `withLock` must be exclusive across *processes*, not just tasks: the single-flight refresh
/// (`Session`) takes it, re-reads, refreshes only if still needed, saves, and releases, so a
/// rotated refresh token is never lost to a race.
public protocol TokenStore: Sendable {
    /// The profile this store holds; a `Session` over the store takes its profile from here, so the
    /// two cannot disagree (a mismatch would surface only after the person has approved).
    var profile: String { get }
    /// The stored session, or nil when there is none. Throws `TokenStoreError` on corrupt,
    /// tampered or unreadable data — never returns nil for a file that exists but cannot be read.
    func load() throws -> StoredSession?
    /// Replaces the stored session atomically: afterwards the old or the new one is stored, never a mix.
    func save(_ session: StoredSession) throws
    /// Removes the stored session; succeeds when there is none.
    func delete() throws
    /// Runs `body` while holding the store's exclusive lock.
    func withLock<T: Sendable>(_ body: @Sendable () async throws -> T) async throws -> T
}
