import Latchkey

/// A `TokenStore` whose loads, saves and deletes all throw, as an unreadable or corrupt token
/// file would: for testing that a failure to store is reported, not swallowed. Its lock runs
/// the body (there is nothing to protect).
public struct FailingTokenStore: TokenStore {
    /// The error thrown when none is given.
    public struct Failure: Error, Equatable {
        /// Makes the error.
        public init() {}
    }

    /// What every operation throws.
    public let error: any Error

    /// A store throwing `error` (by default `Failure()`; a `TokenStoreError` tests a specific cause).
    /// The profile it claims to hold.
    public let profile: String

    /// A store whose every call throws `error`.
    public init(error: any Error = Failure(), profile: String = "default") {
        self.error = error
        self.profile = profile
    }

    /// Throws `error`.
    public func load() throws -> StoredSession? { throw error }
    /// Throws `error`.
    public func save(_ session: StoredSession) throws { throw error }
    /// Throws `error`.
    public func delete() throws { throw error }
    /// Runs `body`.
    public func withLock<T: Sendable>(_ body: @Sendable () async throws -> T) async throws -> T { try await body() }
}
