/// Strict base64url (RFC 4648 §5) as JOSE uses it (RFC 7515 §2): no padding, no whitespace, only the
/// URL-safe alphabet, and canonical trailing bits, so that one byte string has exactly one encoding and a
/// token cannot be altered without changing its signed bytes' meaning.
public enum Base64URL {
    private static let alphabet: [UInt8] = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_".utf8)

    /// 0xFF marks bytes outside the alphabet.
    private static let table: [UInt8] = {
        var t = [UInt8](repeating: 0xFF, count: 256)
        for (i, c) in alphabet.enumerated() { t[Int(c)] = UInt8(i) }
        return t
    }()

    /// Decodes `s`, refusing padding, whitespace, other characters, a length of 1 mod 4 and non-zero
    /// unused trailing bits.
    public static func decode<S: StringProtocol>(_ s: S) throws(JOSEError) -> [UInt8] {
        var s = String(s)
        // withUTF8 is rethrows (untyped), so carry the typed error out in a Result.
        return try s.withUTF8 { (buf) -> Result<[UInt8], JOSEError> in
            do throws(JOSEError) { return .success(try decode(bytes: buf)) } catch { return .failure(error) }
        }.get()
    }

    /// Decodes the ASCII bytes of a base64url text with the same strictness as `decode(_:)`.
    public static func decode(bytes: UnsafeBufferPointer<UInt8>) throws(JOSEError) -> [UInt8] {
        let n = bytes.count
        let rest = n % 4
        if rest == 1 { throw .malformed("base64url length \(n) is impossible") }
        let outCount = n / 4 * 3 + (rest == 0 ? 0 : rest - 1)
        // 0 = fine, 1 = bad character, 2 = non-canonical trailing bits. Errors are reported after the
        // buffer is filled because the initialiser below cannot carry a typed error.
        var problem = 0
        let out = [UInt8](unsafeUninitializedCapacity: outCount) { out, count in
            table.withUnsafeBufferPointer { t in
                var i = 0, o = 0
                var bad: UInt8 = 0
                while i + 4 <= n {
                    let a = t[Int(bytes[i])], b = t[Int(bytes[i + 1])], c = t[Int(bytes[i + 2])], d = t[Int(bytes[i + 3])]
                    bad |= a | b | c | d
                    out[o] = a << 2 | b >> 4
                    out[o + 1] = b << 4 | c >> 2
                    out[o + 2] = c << 6 | d
                    i += 4
                    o += 3
                }
                if rest == 2 {
                    let a = t[Int(bytes[i])], b = t[Int(bytes[i + 1])]
                    bad |= a | b
                    if b & 0x0F != 0 && b < 64 { problem = 2 }
                    out[o] = a << 2 | b >> 4
                } else if rest == 3 {
                    let a = t[Int(bytes[i])], b = t[Int(bytes[i + 1])], c = t[Int(bytes[i + 2])]
                    bad |= a | b | c
                    if c & 0x03 != 0 && c < 64 { problem = 2 }
                    out[o] = a << 2 | b >> 4
                    out[o + 1] = b << 4 | c >> 2
                }
                // Any byte outside the alphabet maps to 0xFF, so its top bits show up here.
                if bad & 0xC0 != 0 { problem = 1 }
            }
            count = outCount
        }
        if problem == 1 { throw .malformed("invalid base64url character") }
        if problem == 2 { throw .malformed("non-canonical base64url trailing bits") }
        return out
    }

    /// Encodes bytes without padding.
    public static func encode<C: Collection>(_ b: C) -> String where C.Element == UInt8 {
        let bytes = Array(b)
        var out = [UInt8]()
        out.reserveCapacity((bytes.count * 4 + 2) / 3)
        var i = 0
        while i + 3 <= bytes.count {
            let v = UInt32(bytes[i]) << 16 | UInt32(bytes[i + 1]) << 8 | UInt32(bytes[i + 2])
            out.append(alphabet[Int(v >> 18 & 63)]); out.append(alphabet[Int(v >> 12 & 63)])
            out.append(alphabet[Int(v >> 6 & 63)]); out.append(alphabet[Int(v & 63)])
            i += 3
        }
        let rest = bytes.count - i
        if rest == 1 {
            let v = UInt32(bytes[i]) << 16
            out.append(alphabet[Int(v >> 18 & 63)]); out.append(alphabet[Int(v >> 12 & 63)])
        } else if rest == 2 {
            let v = UInt32(bytes[i]) << 16 | UInt32(bytes[i + 1]) << 8
            out.append(alphabet[Int(v >> 18 & 63)]); out.append(alphabet[Int(v >> 12 & 63)])
            out.append(alphabet[Int(v >> 6 & 63)])
        }
        return String(decoding: out, as: UTF8.self)
    }
}
