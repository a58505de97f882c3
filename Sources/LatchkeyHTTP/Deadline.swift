import Glibc

/// A point on the monotonic clock; blocking I/O waits at most until it (wall-clock jumps on appliances
/// with odd clocks must not stretch or cut a timeout).
struct Deadline: Sendable {
    let nanoseconds: UInt64

    static func now() -> UInt64 {
        var ts = timespec()
        clock_gettime(CLOCK_MONOTONIC, &ts)
        return UInt64(ts.tv_sec) * 1_000_000_000 + UInt64(ts.tv_nsec)
    }

    init(secondsFromNow seconds: Double) {
        let clamped = max(0, min(seconds, 86_400 * 365))
        nanoseconds = Deadline.now() + UInt64(clamped * 1e9)
    }

    private init(nanoseconds: UInt64) { self.nanoseconds = nanoseconds }

    /// The earlier of two deadlines.
    func earlier(_ other: Deadline) -> Deadline {
        Deadline(nanoseconds: min(nanoseconds, other.nanoseconds))
    }

    /// Milliseconds left, 0 once passed.
    var remainingMilliseconds: Int32 {
        let now = Deadline.now()
        guard nanoseconds > now else { return 0 }
        return Int32(clamping: (nanoseconds - now + 999_999) / 1_000_000)
    }
}
