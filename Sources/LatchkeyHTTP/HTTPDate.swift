/// HTTP dates in IMF-fixdate form (RFC 9110 §5.6.7), e.g. `Sun, 06 Nov 1994 08:49:37 GMT`.
///
/// Only the preferred format is accepted: every server Latchkey talks to sends it, and the obsolete
/// RFC 850 / asctime forms would only widen the parser for a value used as a clock-skew hint.
package enum HTTPDate {
    private static let days = ["Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun"]
    private static let months = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]

    /// Parses an IMF-fixdate; returns nil for anything else (including impossible dates).
    package static func parse(_ string: String) -> Timestamp? {
        let b = Array(string.utf8)
        // "Sun, 06 Nov 1994 08:49:37 GMT" is exactly 29 bytes.
        guard b.count == 29, b[3] == UInt8(ascii: ","), b[4] == 0x20, b[7] == 0x20, b[11] == 0x20,
            b[16] == 0x20, b[19] == UInt8(ascii: ":"), b[22] == UInt8(ascii: ":"), b[25] == 0x20,
            String(decoding: b[26..<29], as: UTF8.self) == "GMT",
            days.contains(String(decoding: b[0..<3], as: UTF8.self)),
            let monthIndex = months.firstIndex(of: String(decoding: b[8..<11], as: UTF8.self)),
            let day = digits(b[5..<7]), let year = digits(b[12..<16]),
            let hour = digits(b[17..<19]), let minute = digits(b[20..<22]), let second = digits(b[23..<25])
        else { return nil }
        let month = monthIndex + 1
        guard day >= 1, day <= Int(CivilDate.daysInMonth(year: Int64(year), month: Int64(month))), hour < 24, minute < 60, second < 61
        else { return nil }
        let epochDays = Int(CivilDate.daysSinceEpoch(year: Int64(year), month: Int64(month), day: Int64(day)))
        let seconds = epochDays * 86_400 + hour * 3600 + minute * 60 + min(second, 59)
        return Timestamp(timeIntervalSince1970: Double(seconds))
    }

    /// Formats a date as IMF-fixdate (used by tests and the loopback listener).
    package static func format(_ date: Timestamp) -> String {
        let total = Int(date.epochSeconds)
        let dayCount = total >= 0 ? total / 86_400 : (total - 86_399) / 86_400
        let secs = total - dayCount * 86_400
        let civil = CivilDate.civilDate(daysSinceEpoch: Int64(dayCount))
        let (y, m, d) = (Int(civil.year), Int(civil.month), Int(civil.day))
        // 1970-01-01 was a Thursday (index 3 in `days`).
        let weekday = ((dayCount % 7) + 7 + 3) % 7
        return "\(days[weekday]), \(pad(d, 2)) \(months[m - 1]) \(pad(y, 4)) "
            + "\(pad(secs / 3600, 2)):\(pad(secs % 3600 / 60, 2)):\(pad(secs % 60, 2)) GMT"
    }

    private static func pad(_ n: Int, _ width: Int) -> String {
        let s = String(n)
        return s.count >= width ? s : String(repeating: "0", count: width - s.count) + s
    }

    private static func digits(_ slice: ArraySlice<UInt8>) -> Int? {
        var n = 0
        for c in slice {
            guard c >= UInt8(ascii: "0"), c <= UInt8(ascii: "9") else { return nil }
            n = n * 10 + Int(c - UInt8(ascii: "0"))
        }
        return n
    }
}

extension HTTPResponse {
    /// The server's `Date` header as a point in time, for clock-skew detection; nil when absent or malformed.
    public var serverDate: Timestamp? {
        header("Date").flatMap(HTTPDate.parse)
    }
}
