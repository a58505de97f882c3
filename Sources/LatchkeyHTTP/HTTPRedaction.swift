/// Redaction of secrets for verbose logs: credentials in headers, and token/code/secret parameters in
/// form bodies, query strings and JSON bodies. The CLI reuses these for its own `--verbose` output.
package enum HTTPRedaction {
    /// What replaces a secret value.
    package static let marker = "[REDACTED]"

    /// Parameter and JSON member names whose values are secrets (compared case-insensitively):
    /// credentials, and the handles that redeem a person's approval at the token endpoint
    /// (`device_code`, CIBA's `auth_req_id`, a `code`). What a person is shown anyway is kept:
    /// `user_code`, and `request_uri`, which travels in the browser's address bar.
    package static let sensitiveNames: Set<String> = [
        "access_token", "refresh_token", "id_token", "id_token_hint", "code", "code_verifier", "client_secret",
        "device_code", "auth_req_id", "password", "token", "client_assertion", "assertion", "subject_token",
        "actor_token", "registration_access_token", "login_hint_token", "client_notification_token"
    ]

    /// Header names whose values carry credentials.
    package static let sensitiveHeaders: Set<String> = [
        "authorization", "proxy-authorization", "cookie", "set-cookie", "dpop"
    ]

    /// Whether `name` is a secret-bearing parameter or member name.
    package static func isSensitive(name: String) -> Bool {
        sensitiveNames.contains(name.lowercased())
    }

    /// Headers whose value is a URL, whose query may carry a `code` or a token (a redirect's `Location`).
    package static let urlHeaders: Set<String> = ["location", "content-location", "refresh"]

    /// The header value to log: credentials replaced, keeping an auth scheme (`Bearer [REDACTED]`);
    /// a URL's secret query parameters replaced.
    package static func redact(headerName: String, value: String) -> String {
        let lower = headerName.lowercased()
        if urlHeaders.contains(lower) { return redact(url: value) }
        guard sensitiveHeaders.contains(lower) else { return value }
        if lower == "authorization" || lower == "proxy-authorization",
            let space = value.firstIndex(of: " ")
        {
            return String(value[..<space]) + " " + marker
        }
        return marker
    }

    /// A form body or query string with sensitive values replaced; other pairs kept byte-for-byte.
    package static func redact(form: String) -> String {
        form.split(separator: "&", omittingEmptySubsequences: false).map { segment -> String in
            guard let eq = segment.firstIndex(of: "=") else { return String(segment) }
            let name = FormURLEncoding.decodeComponent(segment[..<eq])
            return isSensitive(name: name) ? String(segment[..<eq]) + "=" + marker : String(segment)
        }.joined(separator: "&")
    }

    /// A JSON text with the string values of sensitive members replaced. A lexical scan (no full parse):
    /// it must work on malformed or truncated bodies too, and must never throw.
    package static func redact(json: String) -> String {
        let bytes = Array(json.utf8)
        var out: [UInt8] = []
        out.reserveCapacity(bytes.count)
        var i = 0
        var lastString: String? = nil  // the most recent string token, a candidate member name
        var redactNextValue = false
        while i < bytes.count {
            let c = bytes[i]
            if c == UInt8(ascii: "\"") {
                let end = stringEnd(bytes, from: i)
                if redactNextValue {
                    out.append(contentsOf: Array("\"\(marker)\"".utf8))
                    redactNextValue = false
                    lastString = nil
                } else {
                    out.append(contentsOf: bytes[i..<end])
                    // Compared as a parser reads it: `"\u0061ccess_token"` is `access_token`.
                    lastString = unescapedJSONString(bytes[(i + 1)..<max(i + 1, end - 1)])
                }
                i = end
                continue
            }
            if c == UInt8(ascii: ":") {
                redactNextValue = lastString.map(isSensitive(name:)) ?? false
                lastString = nil
            } else if !CharacterClass.isWhitespace(c) {
                // A non-string value (number, object, …) after a sensitive name is left alone.
                redactNextValue = false
                lastString = nil
            }
            out.append(c)
            i += 1
        }
        return String(decoding: out, as: UTF8.self)
    }

    /// A body rendered for logs according to its media type: form and JSON redacted, anything else
    /// summarised by length (it could hold anything).
    package static func redact(body: [UInt8], contentType: String?) -> String {
        if body.isEmpty { return "" }
        let media = contentType?.split(separator: ";").first.map { $0.lowercased().filter { $0 != " " } } ?? ""
        let text = String(decoding: body, as: UTF8.self)
        if media == "application/x-www-form-urlencoded" { return redact(form: text) }
        if media == "application/json" || media.hasSuffix("+json") { return redact(json: text) }
        if media.hasPrefix("text/") { return redact(json: redact(form: text)) }
        return "<\(body.count) bytes of \(media.isEmpty ? "unknown type" : media)>"
    }

    /// A URL with sensitive query parameters replaced (redirect URLs carry `code`).
    package static func redact(url: String) -> String {
        guard let q = url.firstIndex(of: "?") else { return url }
        let fragment = url[q...].firstIndex(of: "#")
        let query = url[url.index(after: q)..<(fragment ?? url.endIndex)]
        return String(url[...q]) + redact(form: String(query)) + (fragment.map { String(url[$0...]) } ?? "")
    }

    /// The text of a JSON string literal's body (between the quotes) with its escapes resolved
    /// (RFC 8259 §7), or nil when an escape is not JSON: a strict parser then refuses the whole
    /// document, so no member of that name is ever read.
    static func unescapedJSONString<Bytes: Collection<UInt8>>(_ body: Bytes) -> String? {
        let b = Array(body)
        guard b.contains(UInt8(ascii: "\\")) else { return String(decoding: b, as: UTF8.self) }
        var out: [UInt8] = []
        out.reserveCapacity(b.count)
        var i = 0
        func hex4(at k: Int) -> UInt32? {
            guard k + 4 <= b.count else { return nil }
            var v: UInt32 = 0
            for c in b[k..<(k + 4)] {
                let d: UInt8
                switch c {
                case 0x30...0x39: d = c - 0x30
                case 0x41...0x46: d = c - 0x41 + 10
                case 0x61...0x66: d = c - 0x61 + 10
                default: return nil
                }
                v = v << 4 | UInt32(d)
            }
            return v
        }
        while i < b.count {
            let c = b[i]
            guard c == UInt8(ascii: "\\") else { out.append(c); i += 1; continue }
            guard i + 1 < b.count else { return nil }
            let e = b[i + 1]
            i += 2
            switch e {
            case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"): out.append(e)
            case UInt8(ascii: "b"): out.append(0x08)
            case UInt8(ascii: "f"): out.append(0x0C)
            case UInt8(ascii: "n"): out.append(0x0A)
            case UInt8(ascii: "r"): out.append(0x0D)
            case UInt8(ascii: "t"): out.append(0x09)
            case UInt8(ascii: "u"):
                guard var v = hex4(at: i) else { return nil }
                i += 4
                if (0xD800..<0xDC00).contains(v) {
                    guard i + 1 < b.count, b[i] == UInt8(ascii: "\\"), b[i + 1] == UInt8(ascii: "u"),
                        let low = hex4(at: i + 2), (0xDC00..<0xE000).contains(low)
                    else { return nil }
                    i += 6
                    v = 0x10000 + ((v - 0xD800) << 10) + (low - 0xDC00)
                } else if (0xDC00..<0xE000).contains(v) {
                    return nil
                }
                guard let scalar = Unicode.Scalar(v) else { return nil }
                out.append(contentsOf: Array(String(Character(scalar)).utf8))
            default: return nil
            }
        }
        return String(decoding: out, as: UTF8.self)
    }

    /// Index just past the closing quote of the JSON string starting at `start` (or the end of input).
    private static func stringEnd(_ bytes: [UInt8], from start: Int) -> Int {
        var j = start + 1
        while j < bytes.count {
            if bytes[j] == UInt8(ascii: "\\") { j += 2; continue }
            if bytes[j] == UInt8(ascii: "\"") { return j + 1 }
            j += 1
        }
        return bytes.count
    }
}
