import LatchkeyHTTP

/// The difference between the server's clock (its `Date` header) and ours. Appliances often boot
/// with a wrong clock; when the difference exceeds the leeway, ID-token time checks follow the
/// server's clock (exp/iat are the server's statements about its own clock), but only up to
/// `maxShift`, and the whole skew is reported.
package enum ClockSkew {
    /// The most the `Date` header may move the clock that ID-token `exp`, `iat` and `nbf` are judged
    /// by: 5 minutes (Kerberos' customary maximum skew).
    ///
    /// Why a bound: the header is not signed and may be set by any proxy or load balancer on the
    /// path, so unbounded it would let one unauthenticated line revive an expired ID token or
    /// refuse a fresh one (a day off does either). Why this size: ID tokens live minutes to an hour,
    /// so a larger shift would already decide most `exp` checks by the header alone, while 5 minutes
    /// still covers the common drift of a device without NTP. Beyond it, verification fails with the
    /// skew in the warning, and the fix is the device's clock.
    public static let maxShift: Double = 300

    /// `serverDate - localNow` in seconds, or nil without a server date.
    public static func measure(serverDate: Timestamp?, localNow: Timestamp) -> Double? {
        serverDate.map { $0.timeIntervalSince(localNow) }
    }

    /// The time source to judge a fresh response's ID token by: `time` itself when the skew is
    /// within `leeway` (HTTP dates have one-second resolution), else `time` shifted towards the
    /// server's clock by the skew, at most `maxShift` either way.
    public static func timeSource(_ time: any TimeSource, skew: Double?, leeway: Double) -> any TimeSource {
        guard let skew, abs(skew) > leeway else { return time }
        return ShiftedTimeSource(base: time, offset: min(max(skew, -maxShift), maxShift))
    }

    /// A one-line warning for a skew beyond `leeway`, or nil.
    public static func warning(skew: Double?, leeway: Double) -> String? {
        guard let skew, abs(skew) > leeway else { return nil }
        let seconds = Int64(abs(skew).rounded())
        let cap = Int64(maxShift)
        let use = abs(skew) > maxShift
            ? "time checks follow the server's clock by at most \(cap) s, so ID tokens may be refused"
            : "time checks use the server's clock, up to \(cap) s away"
        return "the local clock is \(seconds) s \(skew > 0 ? "behind" : "ahead of") the server's; check NTP (\(use))"
    }
}

/// `base` moved by `offset` seconds; sleeping is unchanged.
struct ShiftedTimeSource: TimeSource {
    let base: any TimeSource
    let offset: Double
    func now() -> Timestamp { base.now().addingTimeInterval(offset) }
    func sleep(seconds: Double) async throws { try await base.sleep(seconds: seconds) }
}
