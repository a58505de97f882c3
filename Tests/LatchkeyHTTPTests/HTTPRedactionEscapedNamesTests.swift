import Testing

@testable import LatchkeyHTTP

/// A JSON parser reads `"registration\u005faccess_token"` as `registration_access_token`, so the
/// log redaction must compare member names after unescaping them, or the secret is logged in clear.
@Suite struct HTTPRedactionEscapedNamesTests {
    @Test(arguments: [
        #"registration\u005faccess_token"#,
        #"registration\u005Faccess_token"#,
        #"\u0061ccess_token"#,
        #"\u0072\u0065\u0066\u0072\u0065\u0073\u0068\u005f\u0074\u006f\u006b\u0065\u006e"#,
        #"client\u005Fsecret"#,
        #"\u0063ode"#,
        #"ACCESS\u005FTOKEN"#
    ])
    func escapedSensitiveNamesAreRedacted(name: String) {
        let out = HTTPRedaction.redact(json: #"{"client_id":"app","# + "\"\(name)\"" + #" : "S3CRET-VALUE","scope":"openid"}"#)
        #expect(!out.contains("S3CRET-VALUE"), "\(out)")
        #expect(out.contains(HTTPRedaction.marker), "\(out)")
        #expect(out.contains(#""client_id":"app""#) && out.contains(#""scope":"openid""#), "\(out)")
    }

    @Test func escapedNamesThatAreNotSecretsAreKept() {
        let json = #"{"user\u005fcode":"WDJB-MJHT","\u0073cope":"openid","a\"b":"c","x\\":"y"}"#
        #expect(HTTPRedaction.redact(json: json) == json)
    }

    @Test func escapedSecretValuesAreReplacedWhole() {
        let out = HTTPRedaction.redact(json: #"{"access_token":"\u0053\u0045CRET\"tail"}"#)
        #expect(out == #"{"access_token":"[REDACTED]"}"#)
    }

    @Test func unescapingIsJSONs() {
        #expect(HTTPRedaction.unescapedJSONString(Array(#"a\u005fb\/c\"\\\n\t\b\f\r"#.utf8)) == "a_b/c\"\\\n\t\u{8}\u{C}\r")
        #expect(HTTPRedaction.unescapedJSONString(Array(#"\ud83d\ude00"#.utf8)) == "😀")
        // Not JSON: a strict parser refuses the text, so no member of that name is ever read.
        #expect(HTTPRedaction.unescapedJSONString(Array(#"a\u00"#.utf8)) == nil)
        #expect(HTTPRedaction.unescapedJSONString(Array(#"a\x"#.utf8)) == nil)
        #expect(HTTPRedaction.unescapedJSONString(Array(#"\ud83d"#.utf8)) == nil)
    }
}
