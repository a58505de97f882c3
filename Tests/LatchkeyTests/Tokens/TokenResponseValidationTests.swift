import FoundationEssentials
import LatchkeyHTTP
import LatchkeyTesting
import Testing

@testable import Latchkey

/// What a token response may carry: RFC 6749 §A.12–A.13 (tokens are VSCHAR, %x20-7E) and §7.1
/// (a token type the client does not understand must not be used).
@Suite struct TokenResponseValidationTests {
    /// A 200 token response with `members` spliced into a valid one.
    static func reply(_ members: String) -> HTTPResponse {
        Reply.json(200, "{" + members + #","expires_in":3600}"#)
    }

    /// JSON-escaped access tokens that are not VSCHAR: CR LF (header injection), ESC, DEL, NUL, a tab,
    /// a C1 control and non-ASCII.
    static let badTokens = [
        #"AT\r\nX-Injected: 1"#, #"AT\u001b[8m"#, #"AT\u007f"#, #"AT\u0000"#, #"AT\tX"#,
        #"AT\u0085"#, "ATé"
    ]

    @Test(arguments: badTokens)
    func accessTokenOutsideVSCHARIsMalformed(token: String) {
        let outcome = TokenResponse.parse(Self.reply(#""access_token":"\#(token)","token_type":"Bearer""#))
        guard case .error(.malformedResponse(let reason)) = outcome else {
            Issue.record("accepted access_token \(token): \(outcome)"); return
        }
        #expect(reason.contains("access_token"))
    }

    @Test(arguments: badTokens)
    func refreshTokenOutsideVSCHARIsMalformed(token: String) {
        let outcome = TokenResponse.parse(Self.reply(#""access_token":"at","token_type":"Bearer","refresh_token":"\#(token)""#))
        guard case .error(.malformedResponse(let reason)) = outcome else {
            Issue.record("accepted refresh_token \(token): \(outcome)"); return
        }
        #expect(reason.contains("refresh_token"))
    }

    @Test func everyVSCHARIsAccepted() {
        // %x20-7E, space and the JSON-escaped quote and backslash included.
        let all = String(decoding: Array(0x20...0x7E), as: UTF8.self)
        let escaped = all.replacing("\\", with: "\\\\").replacing("\"", with: "\\\"")
        let outcome = TokenResponse.parse(Self.reply(#""access_token":"\#(escaped)","token_type":"Bearer","refresh_token":"\#(escaped)""#))
        guard case .token(let t) = outcome else { Issue.record("refused: \(outcome)"); return }
        #expect(t.accessToken == all && t.refreshToken == all)
    }

    @Test(arguments: ["Bearer", "bearer", "BEARER", "bEaReR"])
    func bearerIsAcceptedInAnyCase(type: String) {
        guard case .token(let t) = TokenResponse.parse(Self.reply(#""access_token":"at","token_type":"\#(type)""#)) else {
            Issue.record("refused token_type \(type)"); return
        }
        #expect(t.tokenType == "Bearer")
    }

    /// Only Bearer and DPoP are understood (DPoP is `DPoPSessionTests.tokenTypeDPoPIsParsedInAnyCase`).
    @Test(arguments: ["mac", "DPoP-ish", "N_A", "Bearer ", #"Bearer\r\nX-Injected: 1"#, ""])
    func otherTokenTypesAreMalformed(type: String) {
        // `type` is spliced into the JSON text as it is, so escapes in it are JSON escapes.
        let outcome = TokenResponse.parse(Self.reply(#""access_token":"at","token_type":"\#(type)""#))
        guard case .error(.malformedResponse(let reason)) = outcome else {
            Issue.record("accepted token_type \(type): \(outcome)"); return
        }
        #expect(reason.contains("token_type"))
    }

    @Test func formEncodedResponsesAreCheckedToo() {
        // GitHub answers form-encoded; %0D%0A decodes to CR LF.
        let outcome = TokenResponse.parse(Reply.form(200, "access_token=gho_x%0D%0AX-Injected%3A%201&token_type=bearer"))
        guard case .error(.malformedResponse) = outcome else { Issue.record("accepted: \(outcome)"); return }
    }

    @Test func codeExchangeAndRefreshReportAProtocolViolation() async {
        let t = ScriptedTransport { _, _ in Self.reply(#""access_token":"AT\r\nX-Injected: 1","token_type":"Bearer""#) }
        let client = try! TokenClient.testing(
            configuration: testConfiguration(), metadata: testMetadata(), transport: t, random: CountingRandom())
        await expectError(category: .protocolViolation, code: "protocol_violation") {
            try await client.exchangeCode("c", redirectURI: "http://127.0.0.1/cb", verifier: "v")
        }
        await expectError(category: .protocolViolation, code: "protocol_violation") { try await client.refresh(refreshToken: "rt") }
    }

    @Test func deviceLoginEndsWithAProtocolViolation() async {
        let clock = VirtualClock()
        let t = PollScript([Self.reply(#""access_token":"AT\r\nX-Injected: 1","token_type":"Bearer""#)]).transport(clock: clock)
        let client = try! TokenClient.testing(
            configuration: testConfiguration(), metadata: testMetadata(), transport: t, random: CountingRandom())
        await expectError(category: .protocolViolation, code: "protocol_violation") {
            try await DeviceAuthorizationFlow(client: client, time: clock, random: CountingRandom()).run()
        }
    }

    @Test func refreshWithAnInjectedAccessTokenKeepsTheStoredSession() async throws {
        let clock = VirtualClock()
        let now = clock.now()
        let stored = StoredSession(
            profile: "default", issuer: TestIssuer.issuer, clientID: TestIssuer.clientID,
            token: Token(accessToken: "at-1", refreshToken: "rt-1", expiresAt: now),
            subject: nil, idTokenClaimsJSON: nil, metadata: testMetadata(), createdAt: now, updatedAt: now)
        let store = MemoryTokenStore(stored)
        let t = ScriptedTransport(clock: clock) { _, _ in Self.reply(#""access_token":"AT\r\nX-Injected: 1","token_type":"Bearer""#) }
        let session = Session(configuration: testConfiguration(), store: store, transport: t, time: clock, random: CountingRandom())
        await expectError(category: .protocolViolation) { try await session.validToken() }
        #expect(store.session?.token.accessToken == "at-1")
    }
}
