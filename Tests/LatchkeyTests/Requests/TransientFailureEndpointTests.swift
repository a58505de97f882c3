import LatchkeyHTTP
import LatchkeyTesting
import Testing

@testable import Latchkey

/// Every endpoint walked with a provider that keeps failing, a 503 to every request or a
/// connection reset on every request: the same rule (`TransientFailure`) decides how often each is
/// asked, and the failure reads the same everywhere: a 503 that lasts is
/// `.oauth(.unavailable(status: 503, retryAfter: nil), endpoint:)` (category protocolViolation,
/// exit 7, `temporarily_unavailable`), a reset that lasts is `.network(.ioFailure)` (exit 6).
/// Polling is the one endpoint with a deadline instead of a count: there the deadline ends it.
@Suite struct TransientFailureEndpointTests {
    let clock = VirtualClock()

    enum Failure: String, CaseIterable, CustomStringConvertible {
        case status503, connectionReset
        var description: String { rawValue }
    }

    /// A transport whose every request fails with `failure`.
    func failing(_ failure: Failure) -> ScriptedTransport {
        ScriptedTransport(clock: clock) { _, _ in
            switch failure {
            case .status503: return Reply.empty(503)
            case .connectionReset: throw HTTPError.ioFailure(reason: "connection reset by peer")
            }
        }
    }

    /// `body` throws the reading of `failure` at `role`.
    func expectReading(
        _ failure: Failure, at role: EndpointRole, sourceLocation: SourceLocation = #_sourceLocation,
        _ body: () async throws(LatchkeyError) -> Void
    ) async {
        do {
            try await body()
            Issue.record("expected a failure at \(role)", sourceLocation: sourceLocation)
        } catch {
            switch (failure, error) {
            case (.status503, .oauth(let e, let endpoint)):
                #expect(e == .unavailable(status: 503, retryAfter: nil) && endpoint == role, "\(error)", sourceLocation: sourceLocation)
                #expect(error.category == .protocolViolation && error.code == "temporarily_unavailable", sourceLocation: sourceLocation)
            case (.connectionReset, .network(let e)):
                #expect(e == .ioFailure(reason: "connection reset by peer"), "\(error)", sourceLocation: sourceLocation)
                #expect(error.category == .network, sourceLocation: sourceLocation)
            default:
                Issue.record("\(failure) at \(role): \(error)", sourceLocation: sourceLocation)
            }
        }
    }

    func client(
        _ t: ScriptedTransport, metadata: ProviderMetadata = testMetadata(),
        authMethod: ClientAuthMethod = .none
    ) throws -> TokenClient {
        try TokenClient.testing(
            configuration: testConfiguration(authMethod: authMethod), metadata: metadata, transport: t,
            clientSecret: authMethod == .none ? nil : "s3cret", time: clock, random: CountingRandom())
    }

    /// Three attempts, 1 s then 2 s apart.
    func expectQuickRetries(_ t: ScriptedTransport, sourceLocation: SourceLocation = #_sourceLocation) {
        #expect(t.sent.count == TransientFailure.quickAttempts, "\(t.sent.map(\.path))", sourceLocation: sourceLocation)
        #expect(clock.sleeps == [1, 2], sourceLocation: sourceLocation)
    }

    /// Discovery stops at the failing server: the RFC 8414 candidate is on the same host, and a 503
    /// that lasts is no longer "no metadata here" (a protocol violation naming the URL).
    @Test(arguments: Failure.allCases)
    func discovery(_ failure: Failure) async {
        let t = failing(failure)
        await expectReading(failure, at: .discovery) { () throws(LatchkeyError) in
            _ = try await ProviderDiscovery.discover(issuer: "https://idp.example", transport: t, time: clock)
        }
        expectQuickRetries(t)
        #expect(t.sent.allSatisfy { $0.path == "/.well-known/openid-configuration" })
    }

    @Test(arguments: Failure.allCases)
    func jwks(_ failure: Failure) async {
        let t = failing(failure)
        let keys = RemoteKeySet(url: HTTPURL(string: "https://idp.example/jwks")!, transport: t, time: clock)
        await expectReading(failure, at: .jwks) { () throws(LatchkeyError) in _ = try await keys.currentKeys() }
        expectQuickRetries(t)
    }

    @Test(arguments: Failure.allCases)
    func deviceAuthorization(_ failure: Failure) async throws {
        let t = failing(failure)
        let flow = DeviceAuthorizationFlow(client: try client(t), time: clock, random: CountingRandom())
        await expectReading(failure, at: .deviceAuthorization) { () throws(LatchkeyError) in _ = try await flow.start() }
        expectQuickRetries(t)
    }

    /// Polling rides failures out until the device code's deadline (its own pace, never the quick
    /// retry), and the deadline ends it: `expired`, exit 5, as when nobody approves.
    @Test(arguments: Failure.allCases)
    func tokenPolling(_ failure: Failure) async throws {
        let t = ScriptedTransport(clock: clock) { request, _ in
            if request.url.path == "/device" { return DeviceFlowTests.standardDevice }
            switch failure {
            case .status503: return Reply.empty(503)
            case .connectionReset: throw HTTPError.ioFailure(reason: "connection reset by peer")
            }
        }
        let flow = DeviceAuthorizationFlow(client: try client(t), time: clock, random: CountingRandom())
        let started = clock.now()
        await expectError(category: .expired, code: "expired_token") { try await flow.run() }
        #expect(clock.now().timeIntervalSince(started) == 600)
        let polls = t.sent(to: "/token")
        #expect(polls.count >= 10, "\(polls.count)")
        // Never two polls closer than the interval: no quick retry inside a poll.
        let times = polls.map(\.at)
        #expect(zip(times.dropFirst(), times).allSatisfy { $0.timeIntervalSince($1) >= 5 })
    }

    /// A token request is asked again after a 503 and after a reset: when the server did act, the
    /// rotated token is lost with the answer whatever the client does next.
    @Test(arguments: Failure.allCases)
    func refresh(_ failure: Failure) async throws {
        let t = failing(failure)
        let c = try client(t)
        await expectReading(failure, at: .token) { () throws(LatchkeyError) in _ = try await c.refresh(refreshToken: "rt") }
        expectTokenRequestAttempts(t, failure)
        #expect(t.sent.allSatisfy { $0.form["grant_type"] == "refresh_token" })
    }

    /// The code exchange is a token request like the refresh: the same count, the same reading.
    @Test(arguments: Failure.allCases)
    func codeExchange(_ failure: Failure) async throws {
        let t = failing(failure)
        let c = try client(t)
        await expectReading(failure, at: .token) { () throws(LatchkeyError) in
            _ = try await c.exchangeCode("code", redirectURI: "http://127.0.0.1:4000/callback", verifier: "v")
        }
        expectTokenRequestAttempts(t, failure)
    }

    /// A refused connection never reached the server: the refresh is asked again.
    @Test func refreshRetriesARefusedConnection() async throws {
        let t = ScriptedTransport(clock: clock) { _, index in
            if index < 2 { throw HTTPError.connectFailed(host: "idp.example", port: 443, reason: "refused") }
            return DeviceFlowTests.token
        }
        _ = try await (try client(t)).refresh(refreshToken: "rt")
        expectQuickRetries(t)
    }

    /// Three quick attempts after a 503 and after a reset alike (the answer of a request the server
    /// acted on is lost either way; a second try can only keep the session).
    func expectTokenRequestAttempts(_ t: ScriptedTransport, _ failure: Failure, sourceLocation: SourceLocation = #_sourceLocation) {
        expectQuickRetries(t, sourceLocation: sourceLocation)
    }

    /// Revocation never throws (a local logout goes on): the reading comes back as its failure.
    @Test(arguments: Failure.allCases)
    func revocation(_ failure: Failure) async throws {
        let t = failing(failure)
        let outcome = await (try client(t)).revoke("rt", kind: .refreshToken, accessToken: nil)
        switch (failure, outcome) {
        case (.status503, .refused(.refreshToken, .unavailable(status: 503, retryAfter: nil))?): break
        case (.connectionReset, .failed(.refreshToken, .network(.ioFailure))?): break
        default: Issue.record("\(failure): \(String(describing: outcome))")
        }
        expectQuickRetries(t)
    }

    /// A push is sent once; its failure reads as everywhere else.
    @Test(arguments: Failure.allCases)
    func pushedAuthorizationIsNotRetried(_ failure: Failure) async throws {
        let t = failing(failure)
        let flow = AuthorizationCodeFlow(
            client: try client(t, metadata: PushedAuthorizationTests.parMetadata()),
            random: CountingRandom(), time: clock)
        await expectReading(failure, at: .pushedAuthorization) { () throws(LatchkeyError) in
            _ = try await flow.prepareRequest(redirectURI: "http://127.0.0.1:4000/callback")
        }
        #expect(t.sent.map(\.path) == ["/par"])
        #expect(clock.sleeps.isEmpty)
    }

    /// A CIBA request is asked again after a 503 (the server did not act on it), not after a reset
    /// (it may have: a repeat would ask the person twice).
    @Test(arguments: Failure.allCases)
    func backchannelAuthentication(_ failure: Failure) async throws {
        let t = failing(failure)
        let flow = BackchannelAuthenticationFlow(
            client: try client(
                t, metadata: BackchannelAuthenticationTests.metadata(),
                authMethod: .clientSecretBasic), time: clock)
        let request = try BackchannelAuthenticationRequest(loginHint: BackchannelAuthenticationTests.hint)
        await expectReading(failure, at: .backchannelAuthentication) { () throws(LatchkeyError) in
            _ = try await flow.start(request)
        }
        switch failure {
        case .status503: expectQuickRetries(t)
        case .connectionReset:
            #expect(t.sent.count == 1)
            #expect(clock.sleeps.isEmpty)
        }
    }

    /// A CIBA request that never reached the server (connection refused) is asked again.
    @Test func backchannelAuthenticationRetriesARefusedConnection() async throws {
        let t = ScriptedTransport(clock: clock) { _, index in
            if index < 2 { throw HTTPError.connectFailed(host: "idp.example", port: 443, reason: "refused") }
            return BackchannelAuthenticationTests.started
        }
        let flow = BackchannelAuthenticationFlow(
            client: try client(
                t, metadata: BackchannelAuthenticationTests.metadata(),
                authMethod: .clientSecretBasic), time: clock)
        let pending = try await flow.start(try BackchannelAuthenticationRequest(loginHint: BackchannelAuthenticationTests.hint))
        #expect(pending.response.authRequestID == "req-1")
        expectQuickRetries(t)
    }
}
