import LatchkeyHTTP

/// The difference between the server's clock (its `Date` header) and ours. Appliances often boot
/// with a wrong clock; when the difference exceeds the leeway, ID-token time checks use the server's
/// time instead (exp/iat are the server's statements about its own clock), and the skew is reported.
public enum ClockSkew {
    /// `serverDate - localNow` in seconds, or nil without a server date.
    public static func measure(serverDate: Timestamp?, localNow: Timestamp) -> Double? {
        serverDate.map { $0.timeIntervalSince(localNow) }
    }

    /// The time source to judge a fresh response's ID token by: `time` itself when the skew is
    /// within `leeway` (HTTP dates have one-second resolution), else `time` shifted to the server's clock.
    public static func timeSource(_ time: any TimeSource, skew: Double?, leeway: Double) -> any TimeSource {
        guard let skew, abs(skew) > leeway else { return time }
        return ShiftedTimeSource(base: time, offset: skew)
    }

    /// A one-line warning for a skew beyond `leeway`, or nil.
    public static func warning(skew: Double?, leeway: Double) -> String? {
        guard let skew, abs(skew) > leeway else { return nil }
        let seconds = Int64(abs(skew).rounded())
        return "the local clock is \(seconds) s \(skew > 0 ? "behind" : "ahead of") the server's; check NTP (time checks use the server's clock)"
    }
}

/// `base` moved by `offset` seconds; sleeping is unchanged.
struct ShiftedTimeSource: TimeSource {
    let base: any TimeSource
    let offset: Double
    func now() -> Timestamp { base.now().addingTimeInterval(offset) }
    func sleep(seconds: Double) async throws { try await base.sleep(seconds: seconds) }
}
