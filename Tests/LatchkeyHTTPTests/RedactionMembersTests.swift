import Testing

@testable import LatchkeyHTTP

/// Every member that carries a secret (a credential, or a handle that is one: `device_code` and
/// CIBA's `auth_req_id` redeem the person's approval at the token endpoint) is redacted wherever
/// `-v` shows it: JSON bodies, forms, query strings and headers. What a person is shown anyway
/// (`user_code`, `request_uri`, which goes through the browser's address bar) is kept.
@Suite struct RedactionMembersTests {
    static let secretMembers = [
        "access_token", "refresh_token", "id_token", "id_token_hint", "device_code", "auth_req_id", "code",
        "code_verifier", "client_secret", "client_assertion", "assertion", "subject_token", "actor_token",
        "registration_access_token", "login_hint_token", "client_notification_token", "password", "token"
    ]
    static let value = "s3cr3t-VALUE-42"

    @Test func theListNamesEveryMember() {
        for name in Self.secretMembers { #expect(HTTPRedaction.isSensitive(name: name), "\(name)") }
        for name in ["user_code", "request_uri", "client_id", "scope", "interval", "expires_in", "login_hint"] {
            #expect(!HTTPRedaction.isSensitive(name: name), "\(name)")
        }
    }

    @Test(arguments: secretMembers)
    func redactedInJSONFormQueryAndBodies(name: String) {
        let json = #"{"\#(name)":"\#(Self.value)","expires_in":120,"interval":5}"#
        let redactedJSON = HTTPRedaction.redact(body: Array(json.utf8), contentType: "application/json")
        #expect(!redactedJSON.contains(Self.value) && redactedJSON.contains(#""\#(name)":"[REDACTED]""#), "\(redactedJSON)")
        #expect(redactedJSON.contains(#""expires_in":120"#))
        let form = "grant_type=urn%3Aopenid%3Aparams%3Agrant-type%3Aciba&\(name)=\(Self.value)&client_id=c"
        let redactedForm = HTTPRedaction.redact(body: Array(form.utf8), contentType: "application/x-www-form-urlencoded")
        #expect(redactedForm == "grant_type=urn%3Aopenid%3Aparams%3Agrant-type%3Aciba&\(name)=[REDACTED]&client_id=c", "\(redactedForm)")
        let url = HTTPRedaction.redact(url: "https://idp.example/cb?state=x&\(name)=\(Self.value)")
        #expect(url == "https://idp.example/cb?state=x&\(name)=[REDACTED]", "\(url)")
        // A redirect's Location carries the same parameters.
        let location = HTTPRedaction.redact(headerName: "Location", value: "https://idp.example/cb?\(name)=\(Self.value)")
        #expect(!location.contains(Self.value), "\(location)")
        // Upper case member names too.
        #expect(!HTTPRedaction.redact(json: #"{"\#(name.uppercased())":"\#(Self.value)"}"#).contains(Self.value))
    }

    @Test func credentialHeadersAreRedacted() {
        for (header, value) in [
            ("Authorization", "Bearer " + Self.value), ("Authorization", "DPoP " + Self.value),
            ("Proxy-Authorization", "Basic " + Self.value), ("DPoP", Self.value),
            ("Cookie", "sid=" + Self.value), ("Set-Cookie", "sid=" + Self.value)
        ] {
            let shown = HTTPRedaction.redact(headerName: header, value: value)
            #expect(!shown.contains(Self.value), "\(header): \(shown)")
        }
        #expect(HTTPRedaction.redact(headerName: "Content-Type", value: "application/json") == "application/json")
    }

    /// The CIBA answer and a poll as `-v` prints them: the request handle appears in neither.
    @Test func aBackchannelAnswerAndItsPollsShowNoAuthReqID() {
        let answer = HTTPResponse(
            status: 200, headers: [("Content-Type", "application/json")],
            body: Array(#"{"auth_req_id":"1c266114-a1be-4252-8ad1-04986c5b9ac1","expires_in":120,"interval":2}"#.utf8),
            url: HTTPURL(string: "https://idp.example/bc")!)
        let described = HTTPClient.describe(response: answer)
        #expect(!described.contains("1c266114") && described.contains(#""auth_req_id":"[REDACTED]""#), "\(described)")
        let poll = HTTPRequest(
            method: "POST", url: HTTPURL(string: "https://idp.example/token")!,
            headers: [("Content-Type", "application/x-www-form-urlencoded")],
            body: Array("grant_type=urn%3Aopenid%3Aparams%3Agrant-type%3Aciba&auth_req_id=1c266114-a1be".utf8),
            maxRedirects: 0, timeout: 10)
        let shown = HTTPClient.describe(request: poll)
        #expect(!shown.contains("1c266114") && shown.contains("auth_req_id=[REDACTED]"), "\(shown)")
    }
}
