import Testing

@testable import Latchkey

@Suite struct AuthenticationChallengeTests {
    @Test func readsSchemesAndParams() throws {
        let c = try #require(
            AuthenticationChallenge.parse(
                #"Bearer realm="example", error="invalid_token", error_description="The access token expired", DPoP algs="ES256 PS256", error=use_dpop_nonce"#
            ))
        #expect(c.count == 2)
        #expect(c[0].isScheme("bearer"))
        #expect(c[0].parameter("error") == "invalid_token")
        #expect(c[0].parameter("error_description") == "The access token expired")
        #expect(c[1].scheme == "DPoP")
        #expect(c[1].parameter("algs") == "ES256 PS256")
        #expect(c[1].parameter("error") == "use_dpop_nonce")
    }

    @Test func quotedPairsAndToken68() throws {
        let c = try #require(AuthenticationChallenge.parse(#"Basic YWxhZGRpbjpvcGVuc2VzYW1l==, Bearer error="a\"b""#))
        #expect(c.map(\.scheme) == ["Basic", "Bearer"])
        #expect(c[1].parameter("error") == #"a"b"#)
    }

    @Test func invalidTokenIsRecognisedOnlyForTheScheme() {
        #expect(AuthenticationChallenge.hasError("invalid_token", scheme: "Bearer", in: #"Bearer error="invalid_token""#))
        #expect(AuthenticationChallenge.hasError("invalid_token", scheme: "Bearer", in: #"bearer ERROR=invalid_token"#))
        #expect(!AuthenticationChallenge.hasError("invalid_token", scheme: "Bearer", in: #"DPoP error="invalid_token""#))
        #expect(!AuthenticationChallenge.hasError("invalid_token", scheme: "Bearer", in: #"Bearer error="insufficient_scope""#))
        #expect(!AuthenticationChallenge.hasError("invalid_token", scheme: "Bearer", in: nil))
    }

    @Test func hostileHeadersGiveNilOrLessNeverACrash() {
        #expect(AuthenticationChallenge.parse(#"Bearer error="unterminated"#) == nil)
        #expect(AuthenticationChallenge.parse(#"Bearer error="ends-in-escape\"#) == nil)
        #expect(AuthenticationChallenge.parse("Bearer @@@") == nil)
        #expect(AuthenticationChallenge.parse(String(repeating: "a", count: 9000)) == nil)
        #expect(AuthenticationChallenge.parse("")?.isEmpty == true)
        #expect(AuthenticationChallenge.parse("=x") == nil)
    }
}
