import LatchkeyHTTP

/// The one sanitiser for text that did not come from us (servers, token claims, files) on its way
/// to a terminal. Control characters would otherwise let a server set the window title, erase the
/// line or hide the rest of a URL (`ESC[8m`), so the person reads a fake address or code.
///
/// C0 controls (except newline and tab), DEL, C1 controls (U+0080–U+009F) and the bidirectional
/// overrides and isolates (U+202A–U+202E, U+2066–U+2069, which reorder what is shown) become
/// visible escapes: `\x1B`, `\u009B`, `\u202E`. JSON output needs none of this: its encoder escapes.
enum TerminalText {
    /// `text` with every unsafe scalar replaced by its visible escape; newline and tab kept.
    static func sanitize(_ text: String) -> String {
        guard text.unicodeScalars.contains(where: isUnsafe) else { return text }
        var out = String.UnicodeScalarView()
        for scalar in text.unicodeScalars {
            if isUnsafe(scalar) {
                out.append(contentsOf: escape(scalar).unicodeScalars)
            } else {
                out.append(scalar)
            }
        }
        return String(out)
    }

    /// `text` sanitised and on one line: CR and LF become spaces first (error lines, one field).
    static func singleLine(_ text: String) -> String {
        sanitize(String(String.UnicodeScalarView(text.unicodeScalars.map { $0 == "\n" || $0 == "\r" ? " " : $0 })))
    }

    static func isUnsafe(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.value {
        case 0x0A, 0x09: return false
        case 0x202A...0x202E, 0x2066...0x2069: return true
        default: return CharacterClass.isControl(scalar)
        }
    }

    private static func escape(_ scalar: Unicode.Scalar) -> String {
        let v = scalar.value
        let digits = Array("0123456789ABCDEF")
        func hex(_ value: UInt32, width: Int) -> String {
            String((0..<width).reversed().map { digits[Int((value >> (4 * UInt32($0))) & 0xF)] })
        }
        return v < 0x80 ? "\\x" + hex(v, width: 2) : "\\u" + hex(v, width: 4)
    }
}
