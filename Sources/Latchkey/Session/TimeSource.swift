import LatchkeyHTTP

/// Injected time, so tests control the clock and the waits of polling and backoff.
public protocol TimeSource: Sendable {
    /// The current wall-clock time.
    func now() -> Timestamp
    /// Suspends for `seconds`; throws `CancellationError` when the task is cancelled.
    func sleep(seconds: Double) async throws
}

/// Real time: the system clock and `Task.sleep`.
public struct SystemTimeSource: TimeSource {
    /// Makes the system time source.
    public init() {}
    /// The system clock.
    public func now() -> Timestamp { Timestamp.now() }
    /// `Task.sleep`; throws `CancellationError` when cancelled.
    public func sleep(seconds: Double) async throws {
        guard seconds > 0 else { try Task.checkCancellation(); return }
        try await Task.sleep(nanoseconds: UInt64(seconds * 1_000_000_000))
    }
}
