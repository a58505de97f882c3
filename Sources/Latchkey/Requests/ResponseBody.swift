import LatchkeyHTTP
import LatchkeyJOSE

/// A response body as a JSON object: decoded by Content-Type, JSON or form-encoded (RFC 6749 §5.1,
/// but GitHub answers form-encoded); form values become JSON strings.
package enum ResponseBody {
    package static func object(_ response: HTTPResponse) -> JSONObject? {
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
