/// Short human durations: `45 s`, `12 min`, `3 h 05 min`, `2 d 4 h`.
enum DurationText {
    /// `seconds` (≥ 0) in the largest sensible units.
    static func describe(_ seconds: Double) -> String {
        let s = Int64(max(0, seconds).rounded(.down))
        if s < 120 { return "\(s) s" }
        if s < 3600 { return "\(s / 60) min" }
        if s < 86_400 {
            let minutes = s % 3600 / 60
            return "\(s / 3600) h " + (minutes < 10 ? "0" : "") + "\(minutes) min"
        }
        return "\(s / 86_400) d \(s % 86_400 / 3600) h"
    }

    /// `mm:ss` (or `h:mm:ss`) for a countdown.
    static func clock(_ seconds: Double) -> String {
        let s = Int64(max(0, seconds).rounded(.up))
        func two(_ v: Int64) -> String { v < 10 ? "0\(v)" : "\(v)" }
        return s >= 3600 ? "\(s / 3600):\(two(s % 3600 / 60)):\(two(s % 60))" : "\(two(s / 60)):\(two(s % 60))"
    }
}
