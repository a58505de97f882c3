/// `application/x-www-form-urlencoded` bodies and query strings (WHATWG URL §5, RFC 6749 Appendix B).
///
/// Encoding keeps only the RFC 3986 unreserved characters (`A–Z a–z 0–9 - . _ ~`) and percent-encodes
/// every other UTF-8 byte, including space (as `%20`), so the output is valid both as a form body and as
/// a URL query. Decoding accepts `+` as space and `%XX` escapes; malformed escapes are kept literally.
package enum FormURLEncoding {
    /// Encodes ordered name/value pairs as `a=1&b=2`.
    package static func encode(_ pairs: [(String, String)]) -> String {
        pairs.map { encodeComponent($0.0) + "=" + encodeComponent($0.1) }.joined(separator: "&")
    }

    /// Decodes `a=1&b=2` into ordered pairs; empty segments are skipped, a name without `=` gets "".
    package static func decode(_ string: String) -> [(String, String)] {
        var result: [(String, String)] = []
        for segment in string.split(separator: "&", omittingEmptySubsequences: true) {
            if let eq = segment.firstIndex(of: "=") {
                let name = segment[segment.startIndex..<eq]
                let value = segment[segment.index(after: eq)...]
                result.append((decodeComponent(Substring(name)), decodeComponent(Substring(value))))
            } else {
                result.append((decodeComponent(segment), ""))
            }
        }
        return result
    }

    /// Percent-encodes one name or value (unreserved characters kept, everything else `%XX`).
    package static func encodeComponent(_ string: String) -> String {
        var out: [UInt8] = []
        out.reserveCapacity(string.utf8.count)
        for byte in string.utf8 {
            if isUnreserved(byte) {
                out.append(byte)
            } else {
                out.append(UInt8(ascii: "%"))
                out.append(hexDigit(byte >> 4))
                out.append(hexDigit(byte & 0x0F))
            }
        }
        return String(decoding: out, as: UTF8.self)
    }

    /// Decodes one component: `+` becomes space, `%XX` its byte; invalid UTF-8 becomes U+FFFD.
    package static func decodeComponent(_ component: Substring) -> String {
        let bytes = Array(component.utf8)
        var out: [UInt8] = []
        out.reserveCapacity(bytes.count)
        var i = 0
        while i < bytes.count {
            let b = bytes[i]
            if b == UInt8(ascii: "+") {
                out.append(UInt8(ascii: " "))
                i += 1
            } else if b == UInt8(ascii: "%"), i + 2 < bytes.count,
                let hi = hexValue(bytes[i + 1]), let lo = hexValue(bytes[i + 2])
            {
                out.append(hi << 4 | lo)
                i += 3
            } else {
                out.append(b)
                i += 1
            }
        }
        return String(decoding: out, as: UTF8.self)
    }

    static func isUnreserved(_ b: UInt8) -> Bool {
        switch b {
        case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"),
            UInt8(ascii: "0")...UInt8(ascii: "9"),
            UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "_"), UInt8(ascii: "~"):
            return true
        default:
            return false
        }
    }

    static func hexDigit(_ nibble: UInt8) -> UInt8 {
        nibble < 10 ? UInt8(ascii: "0") + nibble : UInt8(ascii: "A") + nibble - 10
    }

    static func hexValue(_ b: UInt8) -> UInt8? {
        switch b {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): return b - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): return b - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): return b - UInt8(ascii: "A") + 10
        default: return nil
        }
    }
}
