import LatchkeyCrypto
import LatchkeyHTTP
import LatchkeyJOSE

/// The request-bound claims of a proof: `htu` (RFC 9449 §4.3) and `ath` (§4.2).
enum DPoPTarget {
    /// `url` without query and fragment, normalised as RFC 3986 §6.2.2–6.2.3 say servers compare
    /// it: scheme and host in lower case, the default port left out, an empty path as `/`,
    /// percent-encodings in upper case with unreserved characters decoded, dot segments removed.
    static func htu(_ url: HTTPURL) -> String {
        url.origin + removingDotSegments(normalisedPercentEncoding(url.path.isEmpty ? "/" : url.path))
    }

    /// `ath`: base64url of the SHA-256 of the access token's ASCII bytes.
    static func accessTokenHash(_ accessToken: String) -> String {
        Base64URL.encode(HashAlgorithm.sha256.hash(Array(accessToken.utf8)))
    }

    static func normalisedPercentEncoding(_ path: String) -> String {
        let b = Array(path.utf8)
        var out: [UInt8] = []
        out.reserveCapacity(b.count)
        var i = 0
        while i < b.count {
            if b[i] == UInt8(ascii: "%"), i + 2 < b.count, let hi = hex(b[i + 1]), let lo = hex(b[i + 2]) {
                let value = hi << 4 | lo
                if isUnreserved(value) {
                    out.append(value)
                } else {
                    out += [UInt8(ascii: "%"), upperHex(hi), upperHex(lo)]
                }
                i += 3
            } else {
                out.append(b[i])
                i += 1
            }
        }
        return String(decoding: out, as: UTF8.self)
    }

    /// RFC 3986 §5.2.4 on an absolute path.
    static func removingDotSegments(_ path: String) -> String {
        var output: [Substring] = []
        let segments = path.split(separator: "/", omittingEmptySubsequences: false).dropFirst()
        for (index, segment) in segments.enumerated() {
            let last = index == segments.count - 1
            switch segment {
            case ".":
                if last { output.append("") }
            case "..":
                if !output.isEmpty { output.removeLast() }
                if last { output.append("") }
            default:
                output.append(segment)
            }
        }
        return "/" + output.joined(separator: "/")
    }

    private static func hex(_ c: UInt8) -> UInt8? {
        switch c {
        case 48...57: return c - 48
        case 65...70: return c - 55
        case 97...102: return c - 87
        default: return nil
        }
    }

    private static func upperHex(_ v: UInt8) -> UInt8 { v < 10 ? v + 48 : v + 55 }

    private static func isUnreserved(_ c: UInt8) -> Bool {
        (c >= 65 && c <= 90) || (c >= 97 && c <= 122) || (c >= 48 && c <= 57) || c == 45 || c == 46 || c == 95 || c == 126
    }
}
