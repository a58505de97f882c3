import Latchkey
import LatchkeyHTTP
import LatchkeyTesting
import Testing

/// Hands out "first", then "second" once "first" has been refused.
struct TwoTokens: TokenSource {
    func token(replacing rejected: Token?) async throws(LatchkeyError) -> Token {
        Token(accessToken: rejected == nil ? "first" : "second")
    }
}

@Test func refusedTokenIsReplacedOnce() async throws {
    let api = HTTPURL(string: "https://api.example/items")!
    let server = ScriptedTransport(script: [
        .reply(HTTPResponse(status: 401, headers: [("WWW-Authenticate", #"Bearer error="invalid_token""#)], url: api)),
        .reply(HTTPResponse(status: 200, url: api))
    ])
    let transport = AuthorizedTransport(base: server, source: TwoTokens(), allowed: [api])
    let response = try await transport.send(HTTPRequest(url: api))
    #expect(response.status == 200)
    #expect(server.sent.map { $0.header("Authorization") } == ["Bearer first", "Bearer second"])
    #expect(server.unusedSteps == 0)
}
