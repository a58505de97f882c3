import Testing

@testable import LatchkeyHTTP

@Suite struct FormURLEncodingTests {
    @Test func encodesUnreservedAsIsAndEverythingElsePercentEncoded() {
        let s = FormURLEncoding.encode([
            ("grant_type", "urn:ietf:params:oauth:grant-type:device_code"),
            ("scope", "openid profile email"), ("x", "a+b&c=d/é~._-")
        ])
        #expect(
            s
                == "grant_type=urn%3Aietf%3Aparams%3Aoauth%3Agrant-type%3Adevice_code&scope=openid%20profile%20email&x=a%2Bb%26c%3Dd%2F%C3%A9~._-"
        )
    }

    @Test func decodesPlusAsSpaceAndPercentEscapes() {
        let pairs = FormURLEncoding.decode(
            "access_token=gho_16C7e42F292c6912E7710c838347Ae178B4a&scope=repo%2Cgist+x&token_type=bearer&empty=&flag")
        #expect(pairs.map(\.0) == ["access_token", "scope", "token_type", "empty", "flag"])
        #expect(pairs.map(\.1) == ["gho_16C7e42F292c6912E7710c838347Ae178B4a", "repo,gist x", "bearer", "", ""])
    }

    @Test func roundTripsArbitraryText() {
        let pairs = [("k ey", "v&a=l+u%e\u{1F510}"), ("", ""), ("a", "ä ö")]
        let back = FormURLEncoding.decode(FormURLEncoding.encode(pairs))
        #expect(back.map(\.0) == ["k ey", "", "a"])
        #expect(back.map(\.1) == ["v&a=l+u%e\u{1F510}", "", "ä ö"])
    }

    @Test func malformedEscapesAreKeptLiterally() {
        #expect(FormURLEncoding.decode("a=%zz%4&b=%").map(\.1) == ["%zz%4", "%"])
        #expect(FormURLEncoding.decode("a=%C3").map(\.1) == ["\u{FFFD}"])
    }
}
