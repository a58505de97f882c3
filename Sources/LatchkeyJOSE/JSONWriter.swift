extension JSONValue {
    /// Compact JSON text: members in order, numbers as written, `/` not escaped.
    public var jsonText: String {
        var out = ""
        write(to: &out, indent: nil, level: 0)
        return out
    }

    /// Indented JSON text (two spaces), for people.
    public var prettyJSONText: String {
        var out = ""
        write(to: &out, indent: "  ", level: 0)
        return out
    }

    private func write(to out: inout String, indent: String?, level: Int) {
        func newline(_ l: Int) {
            guard let indent else { return }
            out += "\n" + String(repeating: indent, count: l)
        }
        switch self {
        case .null: out += "null"
        case .bool(let b): out += b ? "true" : "false"
        case .number(let n): out += n
        case .string(let s): JSONValue.quote(s, into: &out)
        case .array(let a):
            if a.isEmpty { out += "[]"; return }
            out += "["
            for (k, v) in a.enumerated() {
                if k > 0 { out += "," }
                newline(level + 1)
                v.write(to: &out, indent: indent, level: level + 1)
            }
            newline(level)
            out += "]"
        case .object(let o):
            if o.count == 0 { out += "{}"; return }
            out += "{"
            for (k, m) in o.members.enumerated() {
                if k > 0 { out += "," }
                newline(level + 1)
                JSONValue.quote(m.key, into: &out)
                out += indent == nil ? ":" : ": "
                m.value.write(to: &out, indent: indent, level: level + 1)
            }
            newline(level)
            out += "}"
        }
    }

    /// Appends `s` as a JSON string literal. Besides what JSON requires (below U+0020), DEL, C1
    /// (U+009B is a CSI to a terminal), U+2028/2029 and the bidirectional embedding, override and
    /// isolate controls are written as `\uXXXX`: a consumer that prints a field (`jq -r`) then
    /// puts nothing on a screen that a terminal acts on or that reorders the text around it.
    public static func quote(_ s: String, into out: inout String) {
        out += "\""
        for u in s.unicodeScalars {
            switch u {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case "\n": out += "\\n"
            case "\r": out += "\\r"
            case "\t": out += "\\t"
            case _ where mustEscape(u.value):
                let h = String(u.value, radix: 16)
                out += "\\u" + String(repeating: "0", count: 4 - h.count) + h
            default: out.unicodeScalars.append(u)
            }
        }
        out += "\""
    }

    /// Below U+0020, U+007F–U+009F, U+2028–U+202E (separators, embeddings, overrides) and
    /// U+2066–U+2069 (isolates); printable ASCII decides in one comparison.
    @inline(__always) private static func mustEscape(_ v: UInt32) -> Bool {
        if v < 0x7F { return v < 0x20 }
        if v <= 0x9F { return true }
        if v < 0x2028 || v > 0x2069 { return false }
        return v <= 0x202E || v >= 0x2066
    }
}

extension JSONValue: ExpressibleByStringLiteral, ExpressibleByBooleanLiteral, ExpressibleByIntegerLiteral, ExpressibleByNilLiteral {
    public init(stringLiteral value: String) { self = .string(value) }
    public init(booleanLiteral value: Bool) { self = .bool(value) }
    public init(integerLiteral value: Int64) { self = .number(String(value)) }
    public init(nilLiteral: ()) { self = .null }
}
