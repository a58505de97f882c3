import Latchkey
import LatchkeyHTTP
import Synchronization

/// A `TimeSource` under the test's control: time moves only when the test calls `advance(_:)` or
/// when the code under test sleeps, and a sleep returns at once after moving the clock by its
/// duration. A device-flow poll that waits ten minutes runs in microseconds, and the test can
/// read back every sleep it asked for.
public final class VirtualClock: TimeSource, Sendable {
    private let state: Mutex<(now: Timestamp, sleeps: [Double])>

    /// A clock reading `start` (by default 2027-01-15, a fixed instant so that tests are reproducible).
    public init(start: Timestamp = Timestamp(timeIntervalSince1970: 1_800_000_000)) {
        state = Mutex((start, []))
    }

    /// The current virtual time.
    public func now() -> Timestamp { state.withLock { $0.now } }

    /// Records `seconds`, moves the clock on by it (not backwards for a negative value) and
    /// yields once, so other tasks run as they would during a real sleep. Throws
    /// `CancellationError` when the task is cancelled, before or after.
    public func sleep(seconds: Double) async throws {
        try Task.checkCancellation()
        state.withLock { s in
            s.sleeps.append(seconds)
            s.now = s.now.addingTimeInterval(max(seconds, 0))
        }
        await Task.yield()
        try Task.checkCancellation()
    }

    /// Moves the clock by `seconds` (negative moves it back, as a wall clock may be set back).
    public func advance(_ seconds: Double) { state.withLock { $0.now = $0.now.addingTimeInterval(seconds) } }

    /// Every duration passed to `sleep`, in order.
    public var sleeps: [Double] { state.withLock { $0.sleeps } }
}
