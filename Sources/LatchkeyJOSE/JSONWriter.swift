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

    /// Appends `s` as a JSON string literal.
    public static func quote(_ s: String, into out: inout String) {
        out += "\""
        for u in s.unicodeScalars {
            switch u {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case "\n": out += "\\n"
            case "\r": out += "\\r"
            case "\t": out += "\\t"
            case _ where u.value < 0x20:
                let h = String(u.value, radix: 16)
                out += "\\u" + String(repeating: "0", count: 4 - h.count) + h
            default: out.unicodeScalars.append(u)
            }
        }
        out += "\""
    }
}

extension JSONValue: ExpressibleByStringLiteral, ExpressibleByBooleanLiteral, ExpressibleByIntegerLiteral, ExpressibleByNilLiteral {
    public init(stringLiteral value: String) { self = .string(value) }
    public init(booleanLiteral value: Bool) { self = .bool(value) }
    public init(integerLiteral value: Int64) { self = .number(String(value)) }
    public init(nilLiteral: ()) { self = .null }
}
