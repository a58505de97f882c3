import Latchkey

/// A `TokenStore` whose loads, saves and deletes all throw, as an unreadable or corrupt token
/// file would: for testing that a failure to store is reported, not swallowed. Its lock runs
/// the body (there is nothing to protect).
public struct FailingTokenStore: TokenStore {
    /// The error thrown when none is given: an I/O error (EIO) reading the store.
    public static let defaultError = TokenStoreError.io(path: "failing-token-store", operation: "read", errno: 5)

    /// What every operation throws.
    public let error: TokenStoreError
    /// The profile it claims to hold.
    public let profile: String

    /// A store whose every call throws `error` (a specific `TokenStoreError` tests that cause).
    public init(error: TokenStoreError = FailingTokenStore.defaultError, profile: String = "default") {
        self.error = error
        self.profile = profile
    }

    /// Throws `error`.
    public func load() throws(TokenStoreError) -> StoredSession? { throw error }
    /// Throws `error`.
    public func save(_ session: StoredSession) throws(TokenStoreError) { throw error }
    /// Throws `error`.
    public func delete() throws(TokenStoreError) { throw error }
    /// Runs `body`.
    public func withLock<T: Sendable>(_ body: @Sendable () async throws -> T) async throws -> T { try await body() }
}
