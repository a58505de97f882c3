import LatchkeyHTTP

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
    /// The stored session, or nil when there is none; corrupt, tampered or unreadable data throws
    /// (never nil for a file that exists but cannot be read). The errors are `TokenStoreError`s,
    /// typed, so that `LatchkeyError.storage` says what failed: a store of another kind maps its
    /// own failures to the nearest case (`.io` with the errno, `.keyUnavailable`, `.corrupt`).
    func load() throws(TokenStoreError) -> StoredSession?
    /// Replaces the stored session atomically: afterwards the old or the new one is stored, never a mix.
    func save(_ session: StoredSession) throws(TokenStoreError)
    /// Removes the stored session; succeeds when there is none.
    func delete() throws(TokenStoreError)
    /// Runs `body` while holding the store's exclusive lock. Throws what `body` throws, or a
    /// `TokenStoreError` (`.lockFailed`) when the lock cannot be taken.
    func withLock<T: Sendable>(_ body: @Sendable () async throws -> T) async throws -> T
    /// Called under the lock before a refresh request is sent: reserves what the save of its
    /// answer needs (disk space), so that save cannot then fail for lack of it. A refresh rotates
    /// a one-use refresh token at the provider, so a save that fails after it loses the session;
    /// when this throws, nothing is sent. The default reserves nothing and saves with `save`.
    func reserveSave() throws(TokenStoreError) -> any ReservedSave
    /// As `reserveSave()`, sized for saving `session` (what will be written, not what was read).
    func reserveSave(for session: StoredSession) throws(TokenStoreError) -> any ReservedSave
    /// Remembers how the last refresh attempt ended, best effort (never throws), for `status`;
    /// called under the lock. The default forgets it.
    func recordRefresh(_ attempt: RefreshAttempt)
    /// The last recorded refresh attempt, or nil when none is known.
    func lastRefresh() -> RefreshAttempt?
}

extension TokenStore {
    /// Reserves nothing: the save is an ordinary `save`.
    public func reserveSave() throws(TokenStoreError) -> any ReservedSave { UnreservedSave(store: self) }
    /// As `reserveSave()`: a store that reserves nothing has nothing to size.
    public func reserveSave(for session: StoredSession) throws(TokenStoreError) -> any ReservedSave { try reserveSave() }
    /// Forgets it.
    public func recordRefresh(_ attempt: RefreshAttempt) {}
    /// None known.
    public func lastRefresh() -> RefreshAttempt? { nil }
}

/// The save of one refresh's answer, with its space already reserved (`TokenStore.reserveSave`).
public protocol ReservedSave: Sendable {
    /// Saves `session` atomically, as `TokenStore.save` does, into the reserved space. Once.
    func save(_ session: StoredSession) throws(TokenStoreError)
    /// Gives the reserved space back when nothing is saved; harmless after `save`.
    func release()
}

/// `ReservedSave` for a store that reserves nothing.
struct UnreservedSave: ReservedSave {
    let store: any TokenStore
    func save(_ session: StoredSession) throws(TokenStoreError) { try store.save(session) }
    func release() {}
}

/// How one refresh attempt ended, as `status` reports it.
public struct RefreshAttempt: Sendable, Equatable {
    /// When it ended.
    public var at: Timestamp
    /// Nil when it succeeded; otherwise one line saying why it failed.
    public var failure: String?

    /// Makes a record.
    public init(at: Timestamp, failure: String? = nil) {
        self.at = at
        self.failure = failure
    }
}
