/// RFC 3339 timestamps in UTC with whole seconds (`2026-01-01T12:00:00Z`). With `HTTPDate` beside
/// it, the one place where `Timestamp`s become text and back (both on `CivilDate`).
package enum RFC3339 {
    /// `date` as `YYYY-MM-DDTHH:MM:SSZ`, rounded down to the second.
    package static func format(_ date: Timestamp) -> String {
        format(epochSeconds: date.epochSeconds)
    }

    /// Seconds since the Unix epoch as `YYYY-MM-DDTHH:MM:SSZ`.
    package static func format(epochSeconds: Int64) -> String {
        let days = epochSeconds >= 0 ? epochSeconds / 86_400 : (epochSeconds - 86_399) / 86_400
        let secondOfDay = epochSeconds - days * 86_400
        let (year, month, day) = CivilDate.civilDate(daysSinceEpoch: days)
        return pad(year, 4) + "-" + pad(month, 2) + "-" + pad(day, 2) + "T"
            + pad(secondOfDay / 3600, 2) + ":" + pad(secondOfDay % 3600 / 60, 2) + ":" + pad(secondOfDay % 60, 2) + "Z"
    }

    /// Parses `YYYY-MM-DDTHH:MM:SS[.fraction](Z|±HH:MM)` (`t`, `z` and a space separator accepted,
    /// as RFC 3339 §5.6 allows); nil when malformed or out of range.
    package static func parse(_ text: String) -> Timestamp? {
        let b = Array(text.utf8)
        guard b.count >= 20 else { return nil }
        func number(_ from: Int, _ count: Int) -> Int64? {
            guard from + count <= b.count else { return nil }
            var value: Int64 = 0
            for i in from..<(from + count) {
                guard b[i] >= 0x30 && b[i] <= 0x39 else { return nil }
                value = value * 10 + Int64(b[i] - 0x30)
            }
            return value
        }
        guard let year = number(0, 4), b[4] == 0x2D, let month = number(5, 2), b[7] == 0x2D, let day = number(8, 2),
            [0x54, 0x74, 0x20].contains(b[10]),
            let hour = number(11, 2), b[13] == 0x3A, let minute = number(14, 2), b[16] == 0x3A,
            let second = number(17, 2)
        else { return nil }
        guard (1...12).contains(month), day >= 1, day <= CivilDate.daysInMonth(year: year, month: month),
            hour <= 23, minute <= 59, second <= 60
        else { return nil }
        var index = 19
        var fraction = 0.0
        if index < b.count && b[index] == 0x2E {
            index += 1
            var scale = 0.1
            let start = index
            while index < b.count && b[index] >= 0x30 && b[index] <= 0x39 {
                fraction += Double(b[index] - 0x30) * scale
                scale /= 10
                index += 1
            }
            guard index > start else { return nil }
        }
        guard index < b.count else { return nil }
        var offsetSeconds: Int64 = 0
        if b[index] == 0x5A || b[index] == 0x7A {
            index += 1
        } else if b[index] == 0x2B || b[index] == 0x2D {
            guard let oh = number(index + 1, 2), index + 3 < b.count, b[index + 3] == 0x3A,
                let om = number(index + 4, 2), oh <= 23, om <= 59
            else { return nil }
            offsetSeconds = (oh * 3600 + om * 60) * (b[index] == 0x2D ? -1 : 1)
            index += 6
        } else {
            return nil
        }
        guard index == b.count else { return nil }
        // A leap second (:60) is read as the following second; Unix time has no room for it.
        let days = CivilDate.daysSinceEpoch(year: year, month: month, day: day)
        let seconds = days * 86_400 + hour * 3600 + minute * 60 + second - offsetSeconds
        return Timestamp(timeIntervalSince1970: Double(seconds) + fraction)
    }

    private static func pad(_ value: Int64, _ width: Int) -> String {
        let digits = String(value)
        return digits.count >= width ? digits : String(repeating: "0", count: width - digits.count) + digits
    }
}
