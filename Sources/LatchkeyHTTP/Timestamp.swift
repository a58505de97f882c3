import Glibc

/// A point in time: seconds since 1970-01-01T00:00:00Z (Unix time, no leap seconds), as a plain
/// value. The core's replacement for Foundation's `Date`; the method names follow `Date`'s so that
/// code reads the same. `LatchkeyFoundationCompat` converts between the two.
///
/// Reading the clock is `Timestamp.now()`, and only `SystemTimeSource` (Latchkey) and the CLI's
/// process edge call it: everything else is handed a clock.
public struct Timestamp: Sendable, Hashable, Comparable, CustomStringConvertible {
    /// Seconds since the epoch; fractional, may be negative.
    public var timeIntervalSince1970: Double

    /// The instant `seconds` after the epoch.
    public init(timeIntervalSince1970 seconds: Double) { timeIntervalSince1970 = seconds }

    /// The system's real-time clock (`CLOCK_REALTIME`).
    public static func now() -> Timestamp {
        var ts = timespec()
        clock_gettime(CLOCK_REALTIME, &ts)
        return Timestamp(timeIntervalSince1970: Double(ts.tv_sec) + Double(ts.tv_nsec) / 1e9)
    }

    /// An instant before any a server can name, for "never".
    public static let distantPast = Timestamp(timeIntervalSince1970: -62_135_596_800)

    /// This instant moved by `seconds`.
    public func addingTimeInterval(_ seconds: Double) -> Timestamp {
        Timestamp(timeIntervalSince1970: timeIntervalSince1970 + seconds)
    }

    /// Seconds from `other` to this instant (positive when this one is later).
    public func timeIntervalSince(_ other: Timestamp) -> Double {
        timeIntervalSince1970 - other.timeIntervalSince1970
    }

    /// Whole seconds since the epoch, rounded down (what JWT `NumericDate` and the formats use).
    public var epochSeconds: Int64 {
        let s = timeIntervalSince1970.rounded(.down)
        guard s.isFinite else { return s < 0 ? Int64.min : Int64.max }
        return s >= 9.2e18 ? Int64.max : (s <= -9.2e18 ? Int64.min : Int64(s))
    }

    public static func < (a: Timestamp, b: Timestamp) -> Bool { a.timeIntervalSince1970 < b.timeIntervalSince1970 }

    /// RFC 3339 in UTC, whole seconds.
    public var description: String { RFC3339.format(self) }
}
