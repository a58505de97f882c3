import Testing

@testable import Latchkey

/// RFC 9110 §11.6.1 and §5.6: a scheme and a parameter name are tokens (no `/`, which only a
/// token68 may hold), and a quoted-string holds no control character but HTAB, so no CR or LF
/// reaches a value (FuzzAuthenticationChallenge asserts the same).
@Suite struct AuthenticationChallengeGrammarTests {
    @Test(arguments: [
        "Bear/er realm=\"x\"", "Bearer, a/b realm=\"x\"", "Bearer a/b=\"x\"", "Bearer error=\"a\r\nb\"",
        "Bearer error=\"a\nb\"", "Bearer error=\"a\\\rb\"", "Bearer error=\"a\u{0}b\"", "Bearer error=\"a\u{7F}b\""
    ])
    func headersOutsideTheGrammarAreRefused(header: String) {
        #expect(AuthenticationChallenge.parse(header) == nil, "\(header.debugDescription)")
    }

    @Test func whatTheGrammarAllowsStillParses() throws {
        let c = try #require(AuthenticationChallenge.parse("Basic YWxh/ZGRp+bjpv==, Bearer error=\"a\tb é\", DPoP algs=ES256"))
        #expect(c.map(\.scheme) == ["Basic", "Bearer", "DPoP"])
        #expect(c[1].parameter("error") == "a\tb é")
        #expect(c[2].parameter("algs") == "ES256")
    }
}
