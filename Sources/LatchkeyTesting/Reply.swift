import LatchkeyHTTP

/// Builds the responses a `ScriptedTransport` answers with, tersely: `Reply.json(200, "{...}")`.
/// Every response claims to come from `Reply.base`; Latchkey reads status, headers and body only.
public enum Reply {
    /// The URL every reply says it came from.
    public static let base = HTTPURL(string: "https://idp.example")!

    /// A response with a JSON body (`Content-Type: application/json`) and any extra headers.
    public static func json(_ status: Int, _ text: String, headers: [(name: String, value: String)] = []) -> HTTPResponse {
        HTTPResponse(status: status, headers: [("Content-Type", "application/json")] + headers, body: Array(text.utf8), url: base)
    }

    /// A response with a form-encoded body, as GitHub's token endpoint answers by default.
    public static func form(_ status: Int, _ text: String) -> HTTPResponse {
        HTTPResponse(status: status, headers: [("Content-Type", "application/x-www-form-urlencoded")], body: Array(text.utf8), url: base)
    }

    /// A response with no headers and no body.
    public static func empty(_ status: Int) -> HTTPResponse { HTTPResponse(status: status, url: base) }
}
