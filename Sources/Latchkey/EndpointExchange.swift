import LatchkeyHTTP
import LatchkeyJOSE

/// Sending one request to an endpoint and turning transport failures into `LatchkeyError`; the
/// `ProviderPipeline` sends authenticated requests through it. Token, device and revocation
/// endpoints never follow redirects (maxRedirects 0).
struct EndpointExchange: Sendable {
    let transport: any HTTPTransport
    var timeout: Double = 30

    /// GETs a JSON document (discovery, JWKS), following at most `maxRedirects` redirects.
    func getJSON(_ url: HTTPURL, maxRedirects: Int = 3) async throws(LatchkeyError) -> HTTPResponse {
        let request = HTTPRequest(method: "GET", url: url, headers: [("Accept", "application/json")],
                                  maxRedirects: maxRedirects, timeout: timeout)
        return try await send(request)
    }

    /// Sends and maps errors: `HTTPError` → `.network`, cancellation → `.cancelled`.
    func send(_ request: HTTPRequest) async throws(LatchkeyError) -> HTTPResponse {
        if Task.isCancelled { throw .cancelled }
        do {
            return try await transport.send(request)
        } catch let e as HTTPError {
            if e == .cancelled { throw .cancelled }
            throw .network(e)
        } catch is CancellationError {
            throw .cancelled
        } catch {
            throw .network(.ioFailure(reason: "\(error)"))
        }
    }

    /// Resolves an endpoint string into a URL allowed for OAuth traffic (https, or http to loopback).
    static func endpointURL(_ string: String?, name: String) throws(LatchkeyError) -> HTTPURL {
        guard let string, !string.isEmpty else {
            throw .configuration(.missingEndpoint(name))
        }
        guard let url = HTTPURL(string: string) else {
            throw .protocolViolation("\(name) \(string) is not an https URL (http is allowed for loopback only)")
        }
        return url
    }
}

/// A response body as a JSON object: decoded by Content-Type, JSON or form-encoded (RFC 6749 §5.1,
/// but GitHub answers form-encoded); form values become JSON strings.
enum ResponseBody {
    static func object(_ response: HTTPResponse) -> JSONObject? {
        let body = response.body
        if body.isEmpty { return nil }
        let type = response.mediaType ?? ""
        if type == "application/x-www-form-urlencoded" {
            return formObject(body)
        }
        if type == "application/json" || type.hasSuffix("+json") {
            return try? JSONParser().parseObject(body)
        }
        // Unknown or missing type: take whichever parse succeeds, JSON first.
        if let o = try? JSONParser().parseObject(body) { return o }
        if type.isEmpty || type == "text/plain" { return formObject(body) }
        return nil
    }

    private static func formObject(_ body: [UInt8]) -> JSONObject? {
        guard let text = String(validating: body, as: UTF8.self) else { return nil }
        let pairs = FormURLEncoding.decode(text)
        if pairs.isEmpty { return nil }
        var o = JSONObject()
        for (k, v) in pairs where o[k] == nil { o[k] = .string(v) }
        return o
    }
}

/// Reading RFC fields leniently where providers disagree on JSON types.
extension JSONObject {
    /// A string member (nil when absent or not a string).
    func string(_ key: String) -> String? { self[key]?.stringValue }

    /// An integer member sent as a number or as a decimal string ("5"); nil otherwise.
    func lenientInt(_ key: String) -> Int64? {
        guard let v = self[key] else { return nil }
        if let i = v.int64Value { return i }
        if let s = v.stringValue {
            let t = s.filter { $0 != " " }
            if let i = Int64(t) { return i }
            // Int64(Double) traps outside ±2^63, so hostile "1e19" must be refused first (found by FuzzJSON).
            if let d = Double(t), d.isFinite, d.rounded() == d, abs(d) < 9.2e18 { return Int64(d) }
        }
        return nil
    }
}
