/// Why a JSON text was refused.
public struct JSONParseError: Error, Sendable, Equatable, CustomStringConvertible {
    /// Byte offset where parsing stopped.
    public let offset: Int
    /// What was wrong there.
    public let reason: String
    public var description: String { "invalid JSON at byte \(offset): \(reason)" }
}

/// A strict RFC 8259 parser: UTF-8 only, no trailing commas or garbage, duplicate keys refused
/// (a JWT whose claims say `"aud"` twice must not mean two things), bounded nesting and size.
public struct JSONParser: Sendable {
    /// Largest accepted document, in bytes.
    public var maxBytes: Int = 1 << 20
    /// Deepest accepted nesting of arrays and objects.
    public var maxDepth: Int = 64

    /// A parser with the default limits.
    public init() {}

    /// Parses `text` into a value.
    public func parse(_ text: String) throws(JSONParseError) -> JSONValue { try parse(Array(text.utf8)) }

    /// Parses UTF-8 `bytes` into a value.
    public func parse<C: Collection>(_ bytes: C) throws(JSONParseError) -> JSONValue where C.Element == UInt8 {
        try parse(Array(bytes))
    }

    /// Parses and requires a top-level object.
    public func parseObject<C: Collection>(_ bytes: C) throws(JSONParseError) -> JSONObject where C.Element == UInt8 {
        try parseObject(Array(bytes))
    }

    // The byte array itself, not through `Collection`: the token file and the profile are parsed on
    // every `latchkey token`, and from another module the generic entry ran unspecialised (its
    // `Array(bytes)` resolving witnesses and metadata at run time: ~15 K instructions a parse).

    /// Parses UTF-8 `bytes` into a value.
    public func parse(_ bytes: [UInt8]) throws(JSONParseError) -> JSONValue {
        let buf = bytes
        guard buf.count <= maxBytes else { throw JSONParseError(offset: 0, reason: "document larger than \(maxBytes) bytes") }
        var r = Reader(b: buf, maxDepth: maxDepth)
        r.skipWS()
        let v = try r.value(depth: 0)
        r.skipWS()
        guard r.i == buf.count else { throw r.fail("trailing characters") }
        return v
    }

    /// Parses and requires a top-level object.
    public func parseObject(_ bytes: [UInt8]) throws(JSONParseError) -> JSONObject {
        guard case .object(let o) = try parse(bytes) else { throw JSONParseError(offset: 0, reason: "expected a JSON object") }
        return o
    }
}

private struct Reader {
    let b: [UInt8]
    let maxDepth: Int
    var i = 0

    func fail(_ why: String) -> JSONParseError { JSONParseError(offset: i, reason: why) }

    mutating func skipWS() {
        while i < b.count, b[i] == 0x20 || b[i] == 0x09 || b[i] == 0x0A || b[i] == 0x0D { i += 1 }
    }

    mutating func literal(_ word: String, _ v: JSONValue) throws(JSONParseError) -> JSONValue {
        let w = Array(word.utf8)
        guard i + w.count <= b.count, Array(b[i..<i + w.count]) == w else { throw fail("invalid literal") }
        i += w.count
        return v
    }

    mutating func value(depth: Int) throws(JSONParseError) -> JSONValue {
        guard i < b.count else { throw fail("unexpected end") }
        switch b[i] {
        case UInt8(ascii: "{"): return try object(depth: depth + 1)
        case UInt8(ascii: "["): return try array(depth: depth + 1)
        case UInt8(ascii: "\""): return .string(try string())
        case UInt8(ascii: "t"): return try literal("true", .bool(true))
        case UInt8(ascii: "f"): return try literal("false", .bool(false))
        case UInt8(ascii: "n"): return try literal("null", .null)
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): return try number()
        default: throw fail("unexpected character")
        }
    }

    mutating func object(depth: Int) throws(JSONParseError) -> JSONValue {
        guard depth <= maxDepth else { throw fail("nesting deeper than \(maxDepth)") }
        i += 1
        var obj = JSONObject()
        skipWS()
        if i < b.count, b[i] == UInt8(ascii: "}") { i += 1; return .object(obj) }
        while true {
            skipWS()
            guard i < b.count, b[i] == UInt8(ascii: "\"") else { throw fail("expected a member name") }
            let keyAt = i
            let key = try string()
            // Objects here are small (headers, claims, JWKs), so a linear scan beats hashing every key.
            guard obj[key] == nil else { throw JSONParseError(offset: keyAt, reason: "duplicate member \"\(key)\"") }
            skipWS()
            guard i < b.count, b[i] == UInt8(ascii: ":") else { throw fail("expected ':'") }
            i += 1
            skipWS()
            obj.appendNew(key, try value(depth: depth))
            skipWS()
            guard i < b.count else { throw fail("unexpected end in object") }
            if b[i] == UInt8(ascii: ",") { i += 1; continue }
            if b[i] == UInt8(ascii: "}") { i += 1; return .object(obj) }
            throw fail("expected ',' or '}'")
        }
    }

    mutating func array(depth: Int) throws(JSONParseError) -> JSONValue {
        guard depth <= maxDepth else { throw fail("nesting deeper than \(maxDepth)") }
        i += 1
        var out: [JSONValue] = []
        skipWS()
        if i < b.count, b[i] == UInt8(ascii: "]") { i += 1; return .array(out) }
        while true {
            skipWS()
            out.append(try value(depth: depth))
            skipWS()
            guard i < b.count else { throw fail("unexpected end in array") }
            if b[i] == UInt8(ascii: ",") { i += 1; continue }
            if b[i] == UInt8(ascii: "]") { i += 1; return .array(out) }
            throw fail("expected ',' or ']'")
        }
    }

    mutating func number() throws(JSONParseError) -> JSONValue {
        let start = i
        func digits(_ r: inout Reader) -> Int {
            let s = r.i
            while r.i < r.b.count, r.b[r.i] >= 0x30, r.b[r.i] <= 0x39 { r.i += 1 }
            return r.i - s
        }
        if b[i] == UInt8(ascii: "-") { i += 1 }
        guard i < b.count else { throw fail("bad number") }
        if b[i] == UInt8(ascii: "0") { i += 1 } else if digits(&self) == 0 { throw fail("bad number") }
        if i < b.count, b[i] == UInt8(ascii: ".") { i += 1; guard digits(&self) > 0 else { throw fail("bad fraction") } }
        if i < b.count, b[i] == UInt8(ascii: "e") || b[i] == UInt8(ascii: "E") {
            i += 1
            if i < b.count, b[i] == UInt8(ascii: "+") || b[i] == UInt8(ascii: "-") { i += 1 }
            guard digits(&self) > 0 else { throw fail("bad exponent") }
        }
        return .number(String(decoding: b[start..<i], as: UTF8.self))
    }

    mutating func hex4() throws(JSONParseError) -> UInt32 {
        guard i + 4 <= b.count else { throw fail("short \\u escape") }
        var v: UInt32 = 0
        for _ in 0..<4 {
            let c = b[i]
            let d: UInt32
            switch c {
            case 0x30...0x39: d = UInt32(c - 0x30)
            case 0x41...0x46: d = UInt32(c - 0x41 + 10)
            case 0x61...0x66: d = UInt32(c - 0x61 + 10)
            default: throw fail("bad \\u escape")
            }
            v = v << 4 | d
            i += 1
        }
        return v
    }

    mutating func string() throws(JSONParseError) -> String {
        i += 1
        // Fast path: most strings (URLs, tokens, member names) have no escape; find the closing
        // quote and make the string from the bytes in place, without copying them one by one.
        let start = i
        var ascii = true
        while i < b.count {
            let c = b[i]
            if c == UInt8(ascii: "\"") || c == UInt8(ascii: "\\") || c < 0x20 { break }
            if c >= 0x80 { ascii = false }
            i += 1
        }
        if i < b.count, b[i] == UInt8(ascii: "\"") {
            i += 1
            if ascii { return String(decoding: b[start..<(i - 1)], as: UTF8.self) }
            guard let s = String(validating: b[start..<(i - 1)], as: UTF8.self) else { throw fail("invalid UTF-8 in string") }
            return s
        }
        // Slow path, from the first escape (or the error): what was scanned is copied once.
        var out = Array(b[start..<i])
        while true {
            guard i < b.count else { throw fail("unterminated string") }
            let c = b[i]
            if c == UInt8(ascii: "\"") { i += 1; break }
            if c < 0x20 { throw fail("control character in string") }
            if c != UInt8(ascii: "\\") {
                // A run of plain bytes up to the next quote, escape or control byte, copied at once.
                let run = i
                while i < b.count, b[i] != UInt8(ascii: "\""), b[i] != UInt8(ascii: "\\"), b[i] >= 0x20 { i += 1 }
                out.append(contentsOf: b[run..<i])
                continue
            }
            i += 1
            guard i < b.count else { throw fail("unterminated escape") }
            let e = b[i]
            i += 1
            switch e {
            case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"): out.append(e)
            case UInt8(ascii: "b"): out.append(0x08)
            case UInt8(ascii: "f"): out.append(0x0C)
            case UInt8(ascii: "n"): out.append(0x0A)
            case UInt8(ascii: "r"): out.append(0x0D)
            case UInt8(ascii: "t"): out.append(0x09)
            case UInt8(ascii: "u"):
                var cp = try hex4()
                if (0xD800...0xDBFF).contains(cp) {
                    guard i + 2 <= b.count, b[i] == UInt8(ascii: "\\"), b[i + 1] == UInt8(ascii: "u") else { throw fail("lone surrogate") }
                    i += 2
                    let lo = try hex4()
                    guard (0xDC00...0xDFFF).contains(lo) else { throw fail("bad surrogate pair") }
                    cp = 0x10000 + ((cp - 0xD800) << 10) + (lo - 0xDC00)
                } else if (0xDC00...0xDFFF).contains(cp) {
                    throw fail("lone surrogate")
                }
                guard let scalar = Unicode.Scalar(cp) else { throw fail("bad code point") }
                out.append(contentsOf: Array(String(Character(scalar)).utf8))
            default: throw fail("bad escape")
            }
        }
        // ASCII needs no validation (and the generic validator is a hot spot when verifying tokens).
        if !out.contains(where: { $0 >= 0x80 }) { return String(decoding: out, as: UTF8.self) }
        // Refuse invalid UTF-8 rather than repairing it: a repaired claim is a different claim.
        guard let s = String(validating: out, as: UTF8.self) else { throw fail("invalid UTF-8 in string") }
        return s
    }
}
