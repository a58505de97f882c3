/// An exclusive lock that may be held across `await` (a `Mutex` may not): callers wait in turn.
actor AsyncLock {
    private var held = false
    private var waiters: [CheckedContinuation<Void, Never>] = []

    /// Runs `body` while holding the lock.
    func run<T: Sendable>(_ body: @Sendable () async throws -> T) async throws -> T {
        if held {
            await withCheckedContinuation { waiters.append($0) }  // `release` hands the lock over
        } else {
            held = true
        }
        defer { release() }
        return try await body()
    }

    private func release() {
        if waiters.isEmpty { held = false } else { waiters.removeFirst().resume() }
    }
}
