import FoundationEssentials
import Latchkey
import LatchkeyHTTP
import LatchkeyJOSE

// libFuzzer entry point for the strict JSON parser and the JSON shapes the client decodes from servers.
// Every input goes to all of them, so one corpus serves both: the parser (an accepted value must survive a
// round trip through its compact text), then the same bytes as the body of a token-endpoint, device-
// authorization and discovery response. Each decoder must end in a value or a typed error; the invariants
// it promises are asserted, so breaking one is a finding like a crash.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzOne(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let bytes = Array(UnsafeBufferPointer(start: data, count: size))
    var parser = JSONParser()
    parser.maxDepth = 32
    let value = try? parser.parse(bytes)
    if let value {
        let text = value.jsonText
        guard let again = try? parser.parse(Array(text.utf8)) else { fatalError("own output did not parse: \(text)") }
        if again != value { fatalError("round trip changed the value: \(text)") }
        _ = value.prettyJSONText
        _ = value.int64Value
    }
    fuzzResponseDecoders(bytes)
    if let object = value?.objectValue { fuzzDiscovery(object) }
    fuzzRedaction(bytes, parsed: value, parser: parser)
    return 0
}

// Log redaction (`-v`, HTTPRedaction): no member a parser reads under a secret's name, however
// the name is escaped, may keep its string value in the log. Checked on the input as a body, and on
// a document built from the input: a secret name escaped character by character as the input
// chooses, with the rest of the input as its value (random mutations rarely spell an escaped name).
private let secretNames = HTTPRedaction.sensitiveNames.sorted()

private func fuzzRedaction(_ bytes: [UInt8], parsed: JSONValue?, parser: JSONParser) {
    let text = String(decoding: bytes, as: UTF8.self)
    let redacted = HTTPRedaction.redact(json: text)
    if parsed != nil { checkRedacted(redacted, parser: parser) }
    _ = HTTPRedaction.redact(body: bytes, contentType: "text/plain")

    guard let selector = bytes.first else { return }
    let name = Array(secretNames[Int(selector) % secretNames.count].utf8)
    let modes = bytes.dropFirst().prefix(name.count)
    var member = "\""
    for (k, c) in name.enumerated() {
        let mode = k < modes.count ? modes[modes.startIndex + k] : 0
        // Raw, \u00xx or \u00XX (every secret name is ASCII letters and `_`, so two hex digits).
        switch mode & 3 {
        case 1, 2: member += "\\u00" + String(c, radix: 16, uppercase: mode & 3 == 2)
        default: member.unicodeScalars.append(Unicode.Scalar(c))
        }
    }
    member += "\""
    var secret = ""
    JSONValue.quote(String(decoding: bytes.dropFirst(1 + name.count), as: UTF8.self), into: &secret)
    let space = selector & 0x80 != 0 ? " " : ""
    let document =
        selector & 0x40 != 0
        ? "[{\"client_id\":\"app\"," + member + space + ":" + space + secret + "},\"" + String(decoding: name, as: UTF8.self) + "\"]"
        : "{\"nested\":{" + member + ":" + secret + "},\"scope\":\"openid\"}"
    guard (try? parser.parse(Array(document.utf8))) != nil else { fatalError("built an invalid document: \(document)") }
    checkRedacted(HTTPRedaction.redact(json: document), parser: parser)
}

/// `redacted` is the redaction of a JSON text that parsed: it must still parse, and every member
/// whose (unescaped) name is a secret's must hold the marker if it holds a string.
private func checkRedacted(_ redacted: String, parser: JSONParser) {
    guard let value = try? parser.parse(Array(redacted.utf8)) else { fatalError("redaction broke the JSON: \(redacted)") }
    func walk(_ v: JSONValue) {
        switch v {
        case .array(let a): a.forEach(walk)
        case .object(let o):
            for m in o.members {
                if HTTPRedaction.isSensitive(name: m.key), case .string(let s) = m.value, s != HTTPRedaction.marker {
                    fatalError("the value of \(m.key) survived redaction: \(redacted)")
                }
                walk(m.value)
            }
        default: return
        }
    }
    walk(value)
}

/// The (status, Content-Type) pairs a body is decoded under: JSON, form-encoded (GitHub), none (sniffed),
/// a `+json` type, and an error status, so every branch of the body decoding sees the bytes.
private let responseShapes: [(status: Int, contentType: String?)] = [
    (200, "application/json; charset=utf-8"),
    (200, "application/x-www-form-urlencoded"),
    (200, nil),
    (201, "application/problem+json"),
    (400, "application/json"),
    (400, "text/plain")
]

private let endpoint = HTTPURL(string: "https://idp.example/token")!
// A fixed, valid Date header so the serverDate path runs without making the outcome depend on it.
private let dateHeader = (name: "Date", value: "Sun, 29 Nov 2026 12:00:00 GMT")
private let now = Timestamp(timeIntervalSince1970: 1_796_040_000)

private func fuzzResponseDecoders(_ body: [UInt8]) {
    for shape in responseShapes {
        var headers = [dateHeader]
        if let type = shape.contentType { headers.append((name: "Content-Type", value: type)) }
        let response = HTTPResponse(status: shape.status, headers: headers, body: body, url: endpoint)

        switch TokenResponse.parse(response) {
        case .token(let t):
            // Documented: a token only from a 2xx with a non-empty access_token.
            if !(200..<300).contains(shape.status) { fatalError("token from HTTP \(shape.status)") }
            if t.accessToken.isEmpty { fatalError("token with empty access_token") }
            if t.refreshToken?.isEmpty == true || t.idToken?.isEmpty == true { fatalError("empty optional token kept") }
            let token = t.token(at: now)
            if token.accessToken != t.accessToken { fatalError("token(at:) changed the access token") }
            _ = ClockSkew.measure(serverDate: t.serverDate, localNow: now)
        case .error(let e):
            _ = e.description
            _ = e.code
        }

        do {
            let d = try DeviceAuthorizationResponse.parse(response)
            if !(200..<300).contains(shape.status) { fatalError("device response from HTTP \(shape.status)") }
            if d.deviceCode.isEmpty || d.userCode.isEmpty || d.verificationURI.isEmpty {
                fatalError("device response with an empty required member")
            }
            // RFC 8628 §6.1: only a code a person can read and type is shown.
            if d.userCode.utf8.count > DeviceAuthorizationResponse.maxUserCodeLength
                || d.userCode.utf8.contains(where: { $0 < 0x20 || $0 > 0x7E })
            {
                fatalError("user_code \(d.userCode.debugDescription) accepted")
            }
            // Documented: non-positive lifetimes fall back to the defaults.
            if d.expiresIn <= 0 || d.interval <= 0 { fatalError("non-positive expires_in/interval kept") }
        } catch {
            _ = "\(error)"
        }
    }
}

private func fuzzDiscovery(_ object: JSONObject) {
    let plain = ProviderQuirks()
    let entra = ProviderQuirks(entraTenantIssuer: true)
    let configured = ["https://idp.example", "https://login.microsoftonline.com/common/v2.0"]
    var expected = configured
    if let own = object["issuer"]?.stringValue { expected.append(own) }
    for issuer in expected {
        for quirks in [plain, entra] {
            guard let m = try? ProviderDiscovery.parse(object, expectedIssuer: issuer, quirks: quirks) else { continue }
            // Without quirks the issuer must match exactly (RFC 8414 §3.3).
            if quirks == plain && m.issuer != issuer { fatalError("issuer \(m.issuer) accepted for \(issuer)") }
        }
    }
}
