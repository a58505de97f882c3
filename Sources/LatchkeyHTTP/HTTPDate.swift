import FoundationEssentials

/// HTTP dates in IMF-fixdate form (RFC 9110 §5.6.7), e.g. `Sun, 06 Nov 1994 08:49:37 GMT`.
///
/// Only the preferred format is accepted: every server Latchkey talks to sends it, and the obsolete
/// RFC 850 / asctime forms would only widen the parser for a value used as a clock-skew hint.
public enum HTTPDate {
    private static let days = ["Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun"]
    private static let months = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]

    /// Parses an IMF-fixdate; returns nil for anything else (including impossible dates).
    public static func parse(_ string: String) -> Date? {
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
        guard day >= 1, day <= daysInMonth(year: year, month: month), hour < 24, minute < 60, second < 61
        else { return nil }
        let epochDays = daysFromCivil(year: year, month: month, day: day)
        let seconds = epochDays * 86_400 + hour * 3600 + minute * 60 + min(second, 59)
        return Date(timeIntervalSince1970: Double(seconds))
    }

    /// Formats a date as IMF-fixdate (used by tests and the loopback listener).
    public static func format(_ date: Date) -> String {
        let total = Int(date.timeIntervalSince1970.rounded(.down))
        let dayCount = total >= 0 ? total / 86_400 : (total - 86_399) / 86_400
        let secs = total - dayCount * 86_400
        let (y, m, d) = civilFromDays(dayCount)
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

    private static func daysInMonth(year: Int, month: Int) -> Int {
        switch month {
        case 2: return (year % 4 == 0 && year % 100 != 0) || year % 400 == 0 ? 29 : 28
        case 4, 6, 9, 11: return 30
        default: return 31
        }
    }

    // Proleptic Gregorian day arithmetic (the well-known era/day-of-era decomposition).
    static func daysFromCivil(year: Int, month: Int, day: Int) -> Int {
        let y = month <= 2 ? year - 1 : year
        let era = (y >= 0 ? y : y - 399) / 400
        let yoe = y - era * 400
        let mp = (month + 9) % 12
        let doy = (153 * mp + 2) / 5 + day - 1
        let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy
        return era * 146_097 + doe - 719_468
    }

    static func civilFromDays(_ z0: Int) -> (Int, Int, Int) {
        let z = z0 + 719_468
        let era = (z >= 0 ? z : z - 146_096) / 146_097
        let doe = z - era * 146_097
        let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365
        let doy = doe - (365 * yoe + yoe / 4 - yoe / 100)
        let mp = (5 * doy + 2) / 153
        let d = doy - (153 * mp + 2) / 5 + 1
        let m = mp < 10 ? mp + 3 : mp - 9
        return (yoe + era * 400 + (m <= 2 ? 1 : 0), m, d)
    }
}

extension HTTPResponse {
    /// The server's `Date` header as a point in time, for clock-skew detection; nil when absent or malformed.
    public var serverDate: Date? {
        header("Date").flatMap(HTTPDate.parse)
    }
}
