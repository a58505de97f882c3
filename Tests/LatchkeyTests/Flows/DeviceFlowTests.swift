import FoundationEssentials
import Glibc
import LatchkeyHTTP
import LatchkeyTesting
import Testing

@testable import Latchkey

/// Scripts replies by the number of token requests seen so far.
final class PollScript: @unchecked Sendable {
    let replies: [HTTPResponse?]
    init(_ replies: [HTTPResponse?]) { self.replies = replies }
    func transport(clock: VirtualClock, deviceReply: HTTPResponse = DeviceFlowTests.standardDevice) -> ScriptedTransport {
        let replies = self.replies
        return ScriptedTransport(clock: clock) { request, index in
            switch request.url.path {
            case "/device": return deviceReply
            case "/token":
                // index counts every request; the first one is the device request.
                let n = min(index - 1, replies.count - 1)
                guard let reply = replies[n] else { throw HTTPError.connectFailed(host: "idp.example", port: 443, reason: "refused") }
                return reply
            default: return Reply.empty(404)
            }
        }
    }
}

@Suite struct DeviceFlowTests {
    static let standardDevice = Reply.json(
        200,
        #"{"device_code":"dc","user_code":"ABCD-EFGH","verification_uri":"https://idp.example/activate","expires_in":600,"interval":5}"#)
    static let pending = Reply.json(400, #"{"error":"authorization_pending"}"#)
    static let slowDown = Reply.json(400, #"{"error":"slow_down"}"#)
    static let token = Reply.json(200, #"{"access_token":"at","token_type":"Bearer","expires_in":3600,"refresh_token":"rt"}"#)

    let clock = VirtualClock()

    func flow(
        _ transport: ScriptedTransport, metadata: ProviderMetadata = testMetadata(),
        configuration: ClientConfiguration = testConfiguration(), secret: String? = nil
    ) -> DeviceAuthorizationFlow {
        let client = try! TokenClient.testing(
            configuration: configuration, metadata: metadata, transport: transport, clientSecret: secret,
            random: CountingRandom())
        return DeviceAuthorizationFlow(client: client, time: clock, random: CountingRandom())
    }

    /// Gaps between consecutive token requests, and the gap from the device response to the first poll.
    func pollGaps(_ transport: ScriptedTransport) -> [Double] {
        let times = transport.sent.map(\.at)
        return zip(times.dropFirst(), times).map { $0.timeIntervalSince($1) }
    }

    /// `prompt=consent` for offline access belongs to the code flow (OpenID Connect Core §11):
    /// the device request, with the same scopes, has no prompt.
    @Test func theDeviceRequestCarriesNoPromptForOfflineAccess() async throws {
        let t = PollScript([Self.token]).transport(clock: clock)
        _ = try await flow(t).run()
        let form = FormURLEncoding.decode(String(decoding: t.sent[0].request.body, as: UTF8.self))
        #expect(t.sent[0].path == "/device" && form.contains { $0 == ("scope", "openid offline_access") })
        #expect(!form.contains { $0.0 == "prompt" }, "\(form)")
    }

    @Test func pollsAtTheIntervalMeasuredFromTheResponse() async throws {
        let t = PollScript([Self.pending, Self.pending, Self.token]).transport(clock: clock)
        let events = EventLog()
        let token = try await flow(t).run(events: events.record)
        #expect(token.accessToken == "at")
        #expect(pollGaps(t) == [5, 5, 5])
        #expect(events.pendingIntervals == [5, 5])
        #expect(events.sawVerification)
    }

    @Test func intervalCountsFromWhenTheResponseArrived() async throws {
        // Each token response takes 3 s to arrive; the next poll must still wait a full interval after it.
        let replies = [Self.pending, Self.pending, Self.token]
        let t = ScriptedTransport(clock: clock) { [clock] r, index in
            if r.url.path == "/device" { return Self.standardDevice }
            clock.advance(3)
            return replies[min(index - 1, replies.count - 1)]
        }
        _ = try await flow(t).run()
        #expect(pollGaps(t) == [5, 8, 8])
        #expect(clock.sleeps == [5, 5, 5])
    }

    @Test func googleVerificationURLAndClientSecret() async throws {
        let device = Reply.json(
            200,
            #"{"device_code":"AH-1Ng","user_code":"GQVQ-JKEC","verification_url":"https://www.google.com/device","expires_in":1800,"interval":5}"#
        )
        let t = PollScript([Self.pending, Self.token]).transport(clock: clock, deviceReply: device)
        let events = EventLog()
        _ = try await flow(t, configuration: testConfiguration(authMethod: .clientSecretPost), secret: "GOCSPX-x").run(
            events: events.record)
        #expect(events.verification?.verificationURI == "https://www.google.com/device")
        #expect(t.sent(to: "/token").allSatisfy { $0.form["client_secret"] == "GOCSPX-x" })
    }

    @Test func deviceEndpointErrorEndsWithProtocolCategory() async {
        // Keycloak with PKCE required but not sent, or an unknown client.
        let device = Reply.json(400, #"{"error":"invalid_request","error_description":"Missing parameter: code_challenge_method"}"#)
        let t = PollScript([Self.token]).transport(clock: clock, deviceReply: device)
        await expectError(category: .protocolViolation, code: "invalid_request") {
            try await flow(t, configuration: testConfiguration(pkce: .never)).run()
        }
        #expect(t.sent.count == 1)
    }

    @Test func slowDownAddsFiveSeconds() async throws {
        let t = PollScript([Self.slowDown, Self.pending, Self.slowDown, Self.token]).transport(clock: clock)
        let events = EventLog()
        _ = try await flow(t).run(events: events.record)
        #expect(pollGaps(t) == [5, 10, 10, 15])
        #expect(events.slowDowns == [10, 15])
    }

    @Test func githubSlowDownWithNewIntervalAnd200Pending() async throws {
        let t = PollScript([
            Reply.json(200, #"{"error":"authorization_pending"}"#),
            Reply.json(200, #"{"error":"slow_down","interval":13}"#),
            Reply.form(200, "access_token=gho_x&token_type=bearer&scope=repo")
        ]).transport(clock: clock)
        let token = try await flow(t).run()
        #expect(token.accessToken == "gho_x")
        #expect(pollGaps(t) == [5, 5, 13])
    }

    /// RFC 8628 §3.5: slow_down means "increase the interval by 5 s". A server that echoes the current
    /// interval, or names a smaller one, must not keep the client at the rate it was told to leave.
    @Test(arguments: [5, 2, 0, -1])
    func slowDownWithAnIntervalNotLargerStillAddsFiveSeconds(serverInterval: Int) async throws {
        let t = PollScript([
            Reply.json(400, #"{"error":"slow_down","interval":\#(serverInterval)}"#),
            Reply.json(400, #"{"error":"slow_down","interval":"\#(serverInterval)"}"#),
            Self.token
        ]).transport(clock: clock)
        let events = EventLog()
        _ = try await flow(t).run(events: events.record)
        #expect(pollGaps(t) == [5, 10, 15])
        #expect(events.slowDowns == [10, 15])
    }

    @Test func slowDownAdoptsALargerIntervalThenKeepsGrowing() async throws {
        // GitHub: the new interval is adopted; a later slow_down echoing it still adds 5 s.
        let t = PollScript([
            Reply.json(200, #"{"error":"slow_down","interval":7}"#),
            Reply.json(200, #"{"error":"slow_down","interval":7}"#),
            Self.token
        ]).transport(clock: clock)
        let events = EventLog()
        _ = try await flow(t).run(events: events.record)
        #expect(pollGaps(t) == [5, 7, 12])
        #expect(events.slowDowns == [7, 12])
    }

    @Test func everyRequestAsksForJSONAndPublicClientSendsClientIDInBody() async throws {
        let t = PollScript([Self.token]).transport(clock: clock)
        _ = try await flow(t).run()
        for s in t.sent {
            #expect(s.header("Accept") == "application/json")
            #expect(s.form["client_id"] == TestIssuer.clientID)
            #expect(s.header("Authorization") == nil)
            #expect(s.request.maxRedirects == 0)
        }
        #expect(t.sent[1].form["grant_type"] == "urn:ietf:params:oauth:grant-type:device_code")
        #expect(t.sent[1].form["device_code"] == "dc")
        #expect(t.sent[0].form["scope"] == "openid offline_access")
    }

    @Test func githubFormEncodedDeviceResponse() async throws {
        let device = Reply.form(
            200, "device_code=dc2&user_code=WDJB-MJHT&verification_uri=https%3A%2F%2Fgithub.com%2Flogin%2Fdevice&expires_in=899&interval=5")
        let t = PollScript([Self.token]).transport(clock: clock, deviceReply: device)
        let events = EventLog()
        _ = try await flow(t).run(events: events.record)
        #expect(events.verification?.verificationURI == "https://github.com/login/device")
        #expect(t.sent[1].form["device_code"] == "dc2")
    }

    @Test func auth0Pending403AndSlowDown429() async throws {
        let t = PollScript([
            Reply.json(403, #"{"error":"authorization_pending","error_description":"User has yet to authorize device code."}"#),
            Reply.json(429, #"{"error":"slow_down","error_description":"You are polling faster than allowed."}"#),
            Self.token
        ]).transport(clock: clock)
        _ = try await flow(t).run()
        #expect(pollGaps(t) == [5, 5, 10])
    }

    @Test func auth0ExpiredTokenEndsWithExpired() async {
        let t = PollScript([Self.pending, Reply.json(403, #"{"error":"expired_token"}"#)]).transport(clock: clock)
        await expectError(category: .expired) { try await flow(t).run() }
        #expect(t.sent.count == 3)
    }

    @Test func auth0InvalidGrantAfterExpiryEndsWithExpired() async {
        let t = PollScript([Reply.json(403, #"{"error":"invalid_grant"}"#)]).transport(clock: clock)
        await expectError(category: .expired) { try await flow(t).run() }
    }

    /// cli.md: the error event's `error` is the server's OAuth code. `invalid_grant` while polling
    /// still ends the wait (exit 5) but is reported as what the server said.
    @Test func invalidGrantWhilePollingIsReportedAsInvalidGrant() async {
        let t = PollScript([Self.pending, Reply.json(400, #"{"error":"invalid_grant","error_description":"code used"}"#)]).transport(
            clock: clock)
        await expectError(category: .expired, code: "invalid_grant") { try await flow(t).run() }
        // The server's own expired_token, and the client-side deadline, stay expired_token.
        let expired = PollScript([Reply.json(400, #"{"error":"expired_token"}"#)]).transport(clock: clock)
        await expectError(category: .expired, code: "expired_token") { try await flow(expired).run() }
        let forever = PollScript([Self.pending]).transport(clock: clock)
        await expectError(category: .expired, code: "expired_token") { try await flow(forever).run() }
    }

    @Test func accessDeniedEndsWithDenied() async {
        let t = PollScript([Self.pending, Reply.json(403, #"{"error":"access_denied"}"#)]).transport(clock: clock)
        await expectError(category: .denied) { try await flow(t).run() }
    }

    @Test func entraAuthorizationDeclinedAndMessage() async {
        let device = Reply.json(
            200,
            #"{"device_code":"dc","user_code":"FQK5HW3UF","verification_uri":"https://microsoft.com/devicelogin","expires_in":"900","interval":"5","message":"To sign in, use a web browser to open the page https://microsoft.com/devicelogin and enter the code FQK5HW3UF to authenticate."}"#
        )
        let t = PollScript([
            Reply.json(400, #"{"error":"authorization_pending"}"#),
            Reply.json(400, #"{"error":"authorization_declined","error_description":"AADSTS70000: user declined"}"#)
        ]).transport(clock: clock, deviceReply: device)
        let events = EventLog()
        await expectError(category: .denied) { try await flow(t).run(events: events.record) }
        #expect(events.verification?.message?.hasPrefix("To sign in") == true)
        #expect(events.verification?.verificationURIComplete == nil)
        #expect(events.verification?.expiresIn == 900)
    }

    @Test func entraBadVerificationCodeIsAProtocolError() async {
        let t = PollScript([Reply.json(400, #"{"error":"bad_verification_code"}"#)]).transport(clock: clock)
        await expectError(category: .protocolViolation) { try await flow(t).run() }
    }

    @Test(arguments: ["invalid_client", "unauthorized_client", "incorrect_device_code", "device_flow_disabled"])
    func githubAndClientErrorsEndWithProtocolCategory(code: String) async {
        let t = PollScript([Reply.json(200, #"{"error":"\#(code)"}"#)]).transport(clock: clock)
        await expectError(category: .protocolViolation) { try await flow(t).run() }
        #expect(t.sent.count == 2)
    }

    @Test func djangoDeviceNotFound404() async {
        let t = PollScript([Reply.json(404, #"{"error":"device_not_found"}"#)]).transport(clock: clock)
        await expectError(category: .protocolViolation) { try await flow(t).run() }
    }

    @Test func springPendingForeverStopsAtTheDeadline() async {
        // expires_in 600, interval 5: at most 119 polls (the 120th would land at t=600, not before the deadline... it is refused).
        let t = PollScript([Self.pending]).transport(clock: clock)
        let start = clock.now()
        await expectError(category: .expired) { try await flow(t).run() }
        let polls = t.sent(to: "/token")
        #expect(polls.count == 120)
        #expect(polls.last!.at.timeIntervalSince(start) <= 600)
        #expect(clock.now().timeIntervalSince(start) == 600)
    }

    @Test func missingExpiresInAssumes1800() async {
        let device = Reply.json(200, #"{"device_code":"dc","user_code":"U","verification_uri":"https://idp.example/a"}"#)
        let t = PollScript([Self.pending]).transport(clock: clock, deviceReply: device)
        let start = clock.now()
        await expectError(category: .expired) { try await flow(t).run() }
        #expect(t.sent(to: "/token").count == 360)
        #expect(clock.now().timeIntervalSince(start) <= 1800)
    }

    @Test(arguments: [#""interval":"7""#: 7.0, #""interval":0"#: 5.0, #""interval":"x""#: 5.0, #""unused":1"#: 5.0])
    func intervalStringZeroOrMissing(member: String, expected: Double) async throws {
        let device = Reply.json(
            200, #"{"device_code":"dc","user_code":"U","verification_uri":"https://idp.example/a","expires_in":600,\#(member)}"#)
        let t = PollScript([Self.pending, Self.token]).transport(clock: clock, deviceReply: device)
        _ = try await flow(t).run()
        #expect(pollGaps(t) == [expected, expected])
    }

    @Test func callerTimeoutEndsWithTimedOut() async {
        let t = PollScript([Self.pending]).transport(clock: clock)
        let start = clock.now()
        await expectError(category: .expired, code: "timed_out") { try await flow(t).run(timeout: 12) }
        #expect(t.sent(to: "/token").count == 2)
        #expect(clock.now().timeIntervalSince(start) == 12)
    }

    @Test func serverErrorsAndNetworkFailuresAreRetriedWithBackoff() async throws {
        let t = PollScript([Reply.empty(503), nil, Reply.json(502, "<html>bad gateway</html>"), Self.pending, Self.token]).transport(
            clock: clock)
        let events = EventLog()
        _ = try await flow(t).run(events: events.record)
        #expect(pollGaps(t) == [5, 10, 20, 40, 5])
        #expect(events.retries == 3)
    }

    @Test func droppedResponseIsRetried() async throws {
        let t = ScriptedTransport(clock: clock) { r, index in
            if r.url.path == "/device" { return Self.standardDevice }
            if index == 1 { throw HTTPError.protocolViolation(reason: "truncated response") }
            return Self.token
        }
        _ = try await flow(t).run()
        #expect(pollGaps(t) == [5, 10])
    }

    @Test func deviceRequestRetriedAfterDropOr5xx() async throws {
        let t = ScriptedTransport(clock: clock) { r, index in
            switch index {
            case 0: throw HTTPError.ioFailure(reason: "connection reset")
            case 1: return Reply.empty(503)
            default: return r.url.path == "/device" ? Self.standardDevice : Self.token
            }
        }
        _ = try await flow(t).run()
        #expect(t.sent(to: "/device").count == 3)
        #expect(clock.sleeps.prefix(2) == [1, 2])
        let failing = ScriptedTransport(clock: clock) { _, _ in Reply.empty(503) }
        await expectError(category: .protocolViolation) { try await flow(failing).run() }
        #expect(failing.sent.count == DeviceAuthorizationFlow.startAttempts)
    }

    @Test func retriesStopAtTheDeadline() async {
        let t = PollScript([nil]).transport(clock: clock)
        let start = clock.now()
        await expectError(category: .expired) { try await flow(t).run() }
        #expect(clock.now().timeIntervalSince(start) <= 600)
        #expect(t.sent(to: "/token").count >= 10)
    }

    @Test func tlsFailureIsNotRetried() async {
        let t = ScriptedTransport(clock: clock) { _, _ in throw HTTPError.tlsFailure(reason: "certificate not trusted") }
        await expectError(category: .network) { try await flow(t).run() }
        #expect(t.sent.count == 1)
    }

    @Test func cancellationEndsWithCancelled() async {
        let t = PollScript([Self.pending]).transport(clock: clock)
        let f = flow(t)
        let task = Task { try await f.run() }
        while t.sent(to: "/token").count < 3 { await Task.yield() }
        task.cancel()
        let result = await task.result
        guard case .failure(let e) = result else { Issue.record("finished after cancellation"); return }
        #expect((e as? LatchkeyError)?.category == .cancelled)
    }

    @Test func keycloakPKCEOnDeviceEndpointWhenAdvertised() async throws {
        let t = PollScript([Self.token]).transport(clock: clock)
        _ = try await flow(t, metadata: testMetadata(pkce: ["plain", "S256"])).run()
        let challenge = try #require(t.sent[0].form["code_challenge"])
        #expect(t.sent[0].form["code_challenge_method"] == "S256")
        let verifier = try #require(t.sent[1].form["code_verifier"])
        #expect(try PKCE(verifier: verifier).challenge == challenge)
    }

    @Test func pkceModes() async throws {
        let never = PollScript([Self.token]).transport(clock: clock)
        _ = try await flow(never, metadata: testMetadata(pkce: ["S256"]), configuration: testConfiguration(pkce: .never)).run()
        #expect(never.sent[0].form["code_challenge"] == nil)
        #expect(never.sent[1].form["code_verifier"] == nil)

        let autoWithout = PollScript([Self.token]).transport(clock: clock)
        _ = try await flow(autoWithout, metadata: testMetadata(pkce: nil)).run()
        #expect(autoWithout.sent[0].form["code_challenge"] == nil)

        let always = PollScript([Self.token]).transport(clock: clock)
        _ = try await flow(always, metadata: testMetadata(pkce: nil), configuration: testConfiguration(pkce: .always)).run()
        #expect(always.sent[0].form["code_challenge_method"] == "S256")
    }

    @Test func googleConfidentialClientSendsSecretWhenPolling() async throws {
        let t = PollScript([Self.token]).transport(clock: clock)
        _ = try await flow(t, configuration: testConfiguration(authMethod: .clientSecretPost), secret: "s3cret").run()
        #expect(t.sent[1].form["client_secret"] == "s3cret")
        #expect(t.sent[1].form["client_id"] == TestIssuer.clientID)
    }

    @Test func clientSecretBasicUsesFormEncodedCredentials() async throws {
        let t = PollScript([Self.token]).transport(clock: clock)
        _ = try await flow(t, configuration: testConfiguration(authMethod: .clientSecretBasic), secret: "a:b c").run()
        // base64("device-client:a%3Ab%20c")
        let expected = "Basic " + Data("device-client:a%3Ab%20c".utf8).base64EncodedString()
        #expect(t.sent[1].header("Authorization") == expected)
        #expect(t.sent[1].form["client_secret"] == nil)
        #expect(t.sent[1].form["client_id"] == nil)
    }

    @Test func missingDeviceEndpointIsAConfigurationError() async {
        let t = PollScript([Self.token]).transport(clock: clock)
        await expectError(category: .configuration) { try await flow(t, metadata: testMetadata(device: false)).run() }
        #expect(t.sent.isEmpty)
    }
}

/// Records login events.
final class EventLog: @unchecked Sendable {
    private let lock = NSLockish()
    private var events: [LoginEvent] = []
    var record: LoginEventHandler { { [self] e in lock.run { events.append(e) } } }
    var all: [LoginEvent] { lock.run { events } }
    var pendingIntervals: [Int] {
        all.compactMap {
            if case .pending(let n) = $0 { return n }; return nil
        }
    }
    var slowDowns: [Int] {
        all.compactMap {
            if case .slowDown(let n) = $0 { return n }; return nil
        }
    }
    var retries: Int {
        all.filter {
            if case .retrying = $0 { return true }; return false
        }.count
    }
    var verification: DeviceAuthorizationResponse? {
        all.compactMap {
            if case .verification(let r, _) = $0 { return r }; return nil
        }.first
    }
    var sawVerification: Bool { verification != nil }
    var authorizationURL: HTTPURL? {
        all.compactMap {
            if case .authorizationURL(let u) = $0 { return u }; return nil
        }.first
    }
}

/// A tiny mutex wrapper for test bookkeeping.
final class NSLockish: @unchecked Sendable {
    private var m = pthread_mutex_t()
    init() { pthread_mutex_init(&m, nil) }
    func run<T>(_ body: () -> T) -> T { pthread_mutex_lock(&m); defer { pthread_mutex_unlock(&m) }; return body() }
}

/// Expects `body` to throw a LatchkeyError of `category` (and `code` when given).
func expectError<T>(
    category: LatchkeyError.Category, code: String? = nil, sourceLocation: SourceLocation = #_sourceLocation,
    _ body: () async throws -> T
) async {
    do {
        _ = try await body()
        Issue.record("expected a \(category) error, got success", sourceLocation: sourceLocation)
    } catch let error as LatchkeyError {
        #expect(error.category == category, "\(error.message)", sourceLocation: sourceLocation)
        if let code { #expect(error.code == code, sourceLocation: sourceLocation) }
    } catch {
        Issue.record("expected a LatchkeyError, got \(error)", sourceLocation: sourceLocation)
    }
}
