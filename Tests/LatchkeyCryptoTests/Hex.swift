/// Hex decoding/encoding for test vectors (tests only).
enum Hex {
    /// Decodes a hex string; traps on malformed input (vectors are trusted files).
    static func decode(_ text: String) -> [UInt8] {
        let digits = Array(text.utf8)
        precondition(digits.count % 2 == 0, "odd-length hex: \(text)")
        var out = [UInt8]()
        out.reserveCapacity(digits.count / 2)
        var index = 0
        while index < digits.count {
            out.append(nibble(digits[index]) << 4 | nibble(digits[index + 1]))
            index += 2
        }
        return out
    }

    static func encode(_ bytes: [UInt8]) -> String {
        let table = Array("0123456789abcdef".utf8)
        var out = [UInt8]()
        for byte in bytes {
            out.append(table[Int(byte >> 4)])
            out.append(table[Int(byte & 0x0f)])
        }
        return String(decoding: out, as: UTF8.self)
    }

    private static func nibble(_ c: UInt8) -> UInt8 {
        switch c {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): return c - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): return c - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): return c - UInt8(ascii: "A") + 10
        default: preconditionFailure("bad hex digit \(c)")
        }
    }
}
