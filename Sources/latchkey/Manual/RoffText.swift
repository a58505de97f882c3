import LatchkeyHTTP

/// Text made safe for roff (man(7)): a backslash prints as `\e`, a hyphen as `\-` (so options
/// copy and search as ASCII), a line never starts with `.` or `'` (a request), and any scalar
/// outside ASCII becomes `\[uXXXX]`, which groff renders on any terminal encoding.
enum RoffText {
    static func escape(_ text: String) -> String {
        var out = ""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\\": out += "\\e"
            case "-": out += "\\-"
            case "\n": out += " "
            case _ where CharacterClass.isASCIIControl(scalar): out += " "
            case _ where scalar.value > 0x7E: out += "\\[u" + hex(scalar.value) + "]"
            default: out.unicodeScalars.append(scalar)
            }
        }
        if out.hasPrefix(".") || out.hasPrefix("'") { out = "\\&" + out }
        return out
    }

    /// `value` as four or more upper-case hex digits, as groff's `\[uXXXX]` wants.
    private static func hex(_ value: UInt32) -> String {
        let digits = Array("0123456789ABCDEF")
        var out = ""
        var rest = value
        repeat {
            out.insert(digits[Int(rest & 0xF)], at: out.startIndex)
            rest >>= 4
        } while rest > 0
        while out.count < 4 { out.insert("0", at: out.startIndex) }
        return out
    }
}
