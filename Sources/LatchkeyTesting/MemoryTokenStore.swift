import Latchkey
import Synchronization

/// A `TokenStore` in memory, for tests of code that signs in, refreshes or signs out.
///
/// Its lock is real: `withLock` is exclusive across tasks, and waiters go in the order they
/// arrived, as with the file lock of `EncryptedFileTokenStore`, so a test of the single-flight
/// refresh sees the same serialisation as the program. Counters let the test check how often
/// the store was read, written, cleared and locked. Waiting for the lock does not end on
/// cancellation (neither does `flock`); the holder's body does.
public final class MemoryTokenStore: TokenStore, Sendable {
    private struct State {
        var session: StoredSession?
        var loads = 0
        var saves: [StoredSession] = []
        var deletes = 0
        var locks = 0
        var isLocked = false
        var waiters: [CheckedContinuation<Void, Never>] = []
    }

    private let state: Mutex<State>

    /// A store holding `session` (none by default).
    /// The profile this store holds (`TokenStore.profile`).
    public let profile: String

    /// A store for `profile`, holding `session` to begin with.
    public init(_ session: StoredSession? = nil, profile: String = "default") {
        self.profile = profile
        state = Mutex(State(session: session))
    }

    /// The session stored now.
    public var session: StoredSession? { state.withLock { $0.session } }
    /// How many times `load` was called.
    public var loads: Int { state.withLock { $0.loads } }
    /// Every session passed to `save`, in order.
    public var saves: [StoredSession] { state.withLock { $0.saves } }
    /// How many times `delete` was called.
    public var deletes: Int { state.withLock { $0.deletes } }
    /// How many times `withLock` was entered (counted before waiting for the lock).
    public var locks: Int { state.withLock { $0.locks } }

    /// The stored session.
    public func load() throws(TokenStoreError) -> StoredSession? {
        state.withLock { s in
            s.loads += 1
            return s.session
        }
    }

    /// Replaces the stored session and records it.
    public func save(_ session: StoredSession) throws(TokenStoreError) {
        state.withLock { s in
            s.session = session
            s.saves.append(session)
        }
    }

    /// Removes the stored session.
    public func delete() throws(TokenStoreError) {
        state.withLock { s in
            s.session = nil
            s.deletes += 1
        }
    }

    /// Runs `body` holding the store's exclusive lock; other callers wait their turn.
    public func withLock<T: Sendable>(_ body: @Sendable () async throws -> T) async throws -> T {
        await acquire()
        defer { release() }
        return try await body()
    }

    private func acquire() async {
        await withCheckedContinuation { (waiter: CheckedContinuation<Void, Never>) in
            let acquired = state.withLock { s -> Bool in
                s.locks += 1
                if !s.isLocked {
                    s.isLocked = true
                    return true
                }
                s.waiters.append(waiter)
                return false
            }
            if acquired { waiter.resume() }
        }
    }

    /// Hands the lock straight to the longest waiter, or frees it.
    private func release() {
        let next = state.withLock { s -> CheckedContinuation<Void, Never>? in
            if s.waiters.isEmpty {
                s.isLocked = false
                return nil
            }
            return s.waiters.removeFirst()
        }
        next?.resume()
    }
}
