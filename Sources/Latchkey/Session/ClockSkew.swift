import LatchkeyHTTP

/// The difference between the provider's clock (the `Date` header of its answers) and ours.
/// Appliances often boot with a wrong clock (no battery-backed clock, NTP not reached yet); when
/// the difference exceeds the leeway, ID-token time checks follow the provider's clock (`exp`,
/// `iat` and `nbf` are its statements about its own clock), up to `maxShift`, and the offset is
/// reported so the device's clock gets fixed.
package enum ClockSkew {
    /// The largest offset time checks follow: 24 hours. Beyond it ID-token times are refused
    /// (`IDTokenError.clockOffsetTooLarge`).
    ///
    /// Why this much is safe: only a `Date` that arrived over TLS from the provider (or over
    /// loopback, from this machine itself; see `authenticatedServerDate`) is used, so it is the
    /// provider's statement, as the token's own claims are; a network attacker cannot move it.
    /// Why a bound at all: a day covers a board that booted with a stale clock or in the wrong
    /// time zone setting; more than that is a broken clock (often 1970 or 2000), and a person
    /// should look at it rather than have every time check silently follow the server.
    package static let maxShift: Double = 86_400

    /// `serverDate - localNow` in seconds, or nil without a server date.
    package static func measure(serverDate: Timestamp?, localNow: Timestamp) -> Double? {
        serverDate.map { $0.timeIntervalSince(localNow) }
    }

    /// The offset `response` shows, when it carries a `Date` that can be trusted to be the
    /// provider's (`authenticatedServerDate`).
    package static func measure(_ response: HTTPResponse, localNow: Timestamp) -> Double? {
        measure(serverDate: authenticatedServerDate(response), localNow: localNow)
    }

    /// The response's `Date` when it came over TLS (https: the provider, or whoever holds its
    /// certificate, said it) or from a loopback address (this machine; the test providers), else nil.
    package static func authenticatedServerDate(_ response: HTTPResponse) -> Timestamp? {
        guard response.url.isTLS || LoopbackAddress.isLoopbackHost(response.url.host) else { return nil }
        return response.serverDate
    }

    /// True when `skew` is more than `leeway` either way: time checks then follow the provider.
    package static func isSignificant(_ skew: Double?, leeway: Double) -> Bool {
        guard let skew else { return false }
        return abs(skew) > leeway
    }

    /// The time source to judge a fresh response's ID token by: `time` itself when the skew is
    /// within `leeway` (HTTP dates have one-second resolution), else `time` moved to the provider's
    /// clock, at most `maxShift` either way (`check` refuses more).
    package static func timeSource(_ time: any TimeSource, skew: Double?, leeway: Double) -> any TimeSource {
        guard let skew, isSignificant(skew, leeway: leeway) else { return time }
        return ShiftedTimeSource(base: time, offset: min(max(skew, -maxShift), maxShift))
    }

    /// Throws `.verification(.clockOffsetTooLarge)` when `skew` exceeds `maxShift`, before
    /// an ID token's times are judged.
    package static func check(_ skew: Double?) throws(LatchkeyError) {
        guard let skew, abs(skew) > maxShift else { return }
        throw .verification(.clockOffsetTooLarge(seconds: Int64(skew.rounded())))
    }

    /// The offset in whole seconds, provider minus local (positive: the local clock is behind).
    package static func seconds(_ skew: Double) -> Int64 { Int64(skew.rounded()) }
}

/// `base` moved by `offset` seconds; sleeping is unchanged.
struct ShiftedTimeSource: TimeSource {
    let base: any TimeSource
    let offset: Double
    func now() -> Timestamp { base.now().addingTimeInterval(offset) }
    func sleep(seconds: Double) async throws { try await base.sleep(seconds: seconds) }
}
