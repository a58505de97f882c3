import FoundationEssentials
import Testing

@testable import LatchkeyHTTP

@Suite struct HTTPRedactionTests {
    @Test func authorizationKeepsOnlyTheScheme() {
        #expect(HTTPRedaction.redact(headerName: "Authorization", value: "Bearer eyJhbGciOi.x.y") == "Bearer [REDACTED]")
        #expect(HTTPRedaction.redact(headerName: "proxy-authorization", value: "Basic YWxpY2U6cw==") == "Basic [REDACTED]")
        #expect(HTTPRedaction.redact(headerName: "Cookie", value: "sid=abc") == "[REDACTED]")
        #expect(HTTPRedaction.redact(headerName: "Accept", value: "application/json") == "application/json")
    }

    @Test func formSecretsRedactedOthersKept() {
        let body =
            "grant_type=authorization_code&code=SplxlOBeZQQYbYS6WxSbIA&code_verifier=dBjftJeZ4CVP&client_id=app&client_secret=s%26cret&refresh_token=r1&password=hunter2&device_code=GmRh&token=t"
        let out = HTTPRedaction.redact(form: body)
        #expect(
            out
                == "grant_type=authorization_code&code=[REDACTED]&code_verifier=[REDACTED]&client_id=app&client_secret=[REDACTED]&refresh_token=[REDACTED]&password=[REDACTED]&device_code=[REDACTED]&token=[REDACTED]"
        )
    }

    @Test func jsonSecretsRedactedOthersKept() {
        let json =
            #"{"access_token":"2YotnFZFEjr1zCsicMWpAA","token_type":"Bearer","expires_in":3600,"refresh_token" : "tGzv3JOk\"F0XG5Qx2TlKWIA","id_token":"eyJ.x.y","nested":{"device_code":"abc"},"scope":"openid"}"#
        let out = HTTPRedaction.redact(json: json)
        #expect(!out.contains("2YotnFZFEjr1zCsicMWpAA"))
        #expect(!out.contains("tGzv3JOk"))
        #expect(!out.contains("eyJ.x.y"))
        #expect(!out.contains("abc"))
        #expect(out.contains(#""token_type":"Bearer""#))
        #expect(out.contains(#""expires_in":3600"#))
        #expect(out.contains(#""scope":"openid""#))
        // A sensitive name used as a value is not treated as a key.
        #expect(HTTPRedaction.redact(json: #"{"field":"code","x":"y"}"#) == #"{"field":"code","x":"y"}"#)
        // Truncated input does not trap.
        #expect(HTTPRedaction.redact(json: #"{"access_token":"abc"#).contains("[REDACTED]"))
    }

    @Test func redirectURLCodeRedacted() {
        #expect(
            HTTPRedaction.redact(url: "http://127.0.0.1:5000/callback?code=abc&state=xyz#frag")
                == "http://127.0.0.1:5000/callback?code=[REDACTED]&state=xyz#frag")
    }

    @Test func describeRequestNeverContainsSecrets() {
        let req = HTTPRequest(
            method: "POST", url: HTTPURL(string: "https://idp.example/token")!,
            headers: [
                ("Authorization", "Basic Y2xpZW50OnNlY3JldA=="),
                ("Content-Type", "application/x-www-form-urlencoded")
            ],
            body: Array("grant_type=refresh_token&refresh_token=SECRET-RT".utf8))
        let text = HTTPClient.describe(request: req)
        #expect(!text.contains("SECRET-RT"))
        #expect(!text.contains("Y2xpZW50OnNlY3JldA"))
        #expect(text.contains("grant_type=refresh_token"))
        let resp = HTTPResponse(
            status: 200, headers: [("Content-Type", "application/json; charset=utf-8")],
            body: Array(#"{"access_token":"SECRET-AT","expires_in":60}"#.utf8), url: req.url)
        let rtext = HTTPClient.describe(response: resp)
        #expect(!rtext.contains("SECRET-AT"))
        #expect(rtext.contains("expires_in"))
    }
}
