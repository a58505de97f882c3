import FoundationEssentials
import LatchkeyCrypto
import LatchkeyHTTP
import LatchkeyJOSE
import LatchkeyTesting
import Testing

@testable import Latchkey

/// CIBA poll mode (OpenID CIBA Core 1.0): the request, the response, the shared polling rules and
/// the ID token's `auth_req_id` claim, over a scripted transport and a virtual clock.
@Suite struct BackchannelAuthenticationTests {
    static let started = Reply.json(200, #"{"auth_req_id":"req-1","expires_in":120,"interval":5}"#)
    static let pending = Reply.json(400, #"{"error":"authorization_pending"}"#)
    static let token = Reply.json(200, #"{"access_token":"at","token_type":"bearer","expires_in":3600,"refresh_token":"rt"}"#)
    static let hint = #"{"username":"alice"}"#

    let clock = VirtualClock()

    static func metadata(modes: [String]? = ["poll"], endpoint: Bool = true) -> ProviderMetadata {
        var m = testMetadata(device: false)
        if endpoint { m.backchannelAuthenticationEndpoint = "https://idp.example/bc-authorize" }
        m.backchannelTokenDeliveryModesSupported = modes
        return m
    }

    func flow(_ transport: ScriptedTransport, metadata: ProviderMetadata = metadata(), dpop: DPoPKey? = nil) throws
        -> BackchannelAuthenticationFlow
    {
        let client = try TokenClient.testing(
            configuration: testConfiguration(authMethod: .clientSecretBasic), metadata: metadata,
            transport: transport, clientSecret: "s3cret", dpopKey: dpop, time: clock, random: CountingRandom())
        return BackchannelAuthenticationFlow(client: client, time: clock)
    }

    func server(_ polls: [HTTPResponse], start: HTTPResponse = started) -> ScriptedTransport {
        ScriptedTransport(clock: clock) { request, index in
            switch request.url.path {
            case "/bc-authorize": return start
            case "/token": return polls[min(index - 1, polls.count - 1)]
            default: return Reply.empty(404)
            }
        }
    }

    func gaps(_ t: ScriptedTransport) -> [Double] {
        let times = t.sent.map(\.at)
        return zip(times.dropFirst(), times).map { $0.timeIntervalSince($1) }
    }

    // MARK: The request

    @Test func requestCarriesClientAuthenticationScopeAndTheHintUnchanged() async throws {
        let t = server([Self.token])
        let request = try BackchannelAuthenticationRequest(
            loginHint: Self.hint, bindingMessage: "Kiosk 7 · 4F2A",
            requestedExpiry: 90, additionalParameters: [("resource", "https://api.example")])
        let events = EventLog()
        let result = try await flow(t).run(request, events: events.record)
        #expect(result.authRequestID == "req-1" && result.response.accessToken == "at")
        let sent = try #require(t.sent(to: "/bc-authorize").first)
        #expect(sent.request.method == "POST")
        #expect(sent.form["login_hint"] == Self.hint)
        #expect(sent.form["binding_message"] == "Kiosk 7 · 4F2A")
        #expect(sent.form["requested_expiry"] == "90")
        #expect(sent.form["scope"] == "openid offline_access")
        #expect(sent.form["resource"] == "https://api.example")
        #expect(sent.header("Authorization")?.hasPrefix("Basic ") == true)
        let poll = try #require(t.sent(to: "/token").first)
        #expect(poll.form["grant_type"] == "urn:openid:params:grant-type:ciba")
        #expect(poll.form["auth_req_id"] == "req-1")
        #expect(poll.header("Authorization")?.hasPrefix("Basic ") == true)
        let backchannel = events.all.compactMap { event -> (BackchannelAuthenticationRequest, Timestamp)? in
            if case .backchannel(let r, _, let at) = event { return (r, at) }
            return nil
        }
        #expect(backchannel.count == 1 && backchannel.first?.0.loginHint == Self.hint)
        #expect(backchannel.first?.1 == t.sent(to: "/bc-authorize")[0].at.addingTimeInterval(120))
    }

    @Test func theProfilesResourcesAndExtraParametersGoOnTheRequest() async throws {
        let t = server([Self.token])
        var configuration = testConfiguration(authMethod: .clientSecretBasic)
        configuration.resources = ["https://api.example/a", "urn:example:b"]
        configuration.extraParameters = [try RequestParameter(name: "acr_values", value: "phr")]
        let client = try TokenClient.testing(
            configuration: configuration, metadata: Self.metadata(), transport: t,
            clientSecret: "s3cret", time: clock, random: CountingRandom())
        _ = try await BackchannelAuthenticationFlow(client: client, time: clock).run(
            try BackchannelAuthenticationRequest(loginHint: Self.hint))
        let sent = try #require(t.sent(to: "/bc-authorize").first)
        let body = String(decoding: sent.request.body, as: UTF8.self)
        #expect(body.contains("resource=https%3A%2F%2Fapi.example%2Fa&resource=urn%3Aexample%3Ab"), "\(body)")
        #expect(sent.form["acr_values"] == "phr" && sent.form["login_hint"] == Self.hint)
    }

    @Test func aDPoPSessionSendsAProofWithTheRequest() async throws {
        let t = server([Self.token])
        let key = try DPoPKey(random: SecureRandom())
        _ = try? await flow(t, dpop: key).run(try BackchannelAuthenticationRequest(loginHint: Self.hint))
        let proof = try #require(t.sent(to: "/bc-authorize").first?.header("DPoP"))
        let claims = try JSONParser().parseObject(try JWS(compact: proof).payload)
        #expect(claims["htu"] == .string("https://idp.example/bc-authorize") && claims["htm"] == .string("POST"))
    }

    @Test func bindingMessageRules() throws {
        #expect(BackchannelAuthenticationRequest.bindingMessageProblem(String(repeating: "a", count: 64)) == nil)
        #expect(BackchannelAuthenticationRequest.bindingMessageProblem(String(repeating: "é", count: 64)) == nil)
        #expect(BackchannelAuthenticationRequest.bindingMessageProblem("Kiosk 7 – Café") == nil)
        #expect(BackchannelAuthenticationRequest.bindingMessageProblem(String(repeating: "a", count: 65)) != nil)
        for bad in ["", "line\nbreak", "tab\there", "esc\u{1B}[2J", "del\u{7F}", "csi\u{9B}31m", "nul\u{0}"] {
            #expect(BackchannelAuthenticationRequest.bindingMessageProblem(bad) != nil, "\(Array(bad.unicodeScalars))")
        }
        #expect(throws: LatchkeyError.self) { try BackchannelAuthenticationRequest(loginHint: "a", bindingMessage: "x\ny") }
        #expect(throws: LatchkeyError.self) { try BackchannelAuthenticationRequest(loginHint: "") }
        #expect(throws: LatchkeyError.self) { try BackchannelAuthenticationRequest(loginHint: "a", requestedExpiry: 0) }
    }

    // MARK: The response

    @Test func responseParsing() throws {
        let ok = try BackchannelAuthenticationResponse.parse(Reply.json(200, #"{"auth_req_id":"r","expires_in":"60"}"#))
        #expect(ok == BackchannelAuthenticationResponse(authRequestID: "r", expiresIn: 60, interval: 5), "a missing interval is 5 s")
        #expect(
            try BackchannelAuthenticationResponse.parse(Reply.json(200, #"{"auth_req_id":"r","expires_in":60,"interval":0}"#)).interval == 5
        )
        #expect(
            try BackchannelAuthenticationResponse.parse(Reply.json(200, #"{"auth_req_id":"r","expires_in":99999999}"#)).expiresIn
                == DeviceAuthorizationResponse.maxExpiresIn)
        for body in [
            #"{"expires_in":60}"#, #"{"auth_req_id":"","expires_in":60}"#, #"{"auth_req_id":"r"}"#,
            #"{"auth_req_id":"r","expires_in":0}"#, "[]"
        ] {
            #expect(throws: LatchkeyError.self, "\(body)") { try BackchannelAuthenticationResponse.parse(Reply.json(200, body)) }
        }
    }

    @Test func refusalsOfTheRequest() async throws {
        func refusal(_ status: Int, _ body: String) -> LatchkeyError? {
            do { _ = try BackchannelAuthenticationResponse.parse(Reply.json(status, body)); return nil } catch { return error }
        }
        let unknown = try #require(refusal(400, #"{"error":"unknown_user_id"}"#))
        guard case .oauth(.server("unknown_user_id", _, 400), .backchannelAuthentication) = unknown else {
            Issue.record("\(unknown)"); return
        }
        #expect(unknown.category == .protocolViolation)
        #expect(refusal(403, #"{"error":"access_denied"}"#)?.category == .denied)
        #expect(refusal(400, #"{"error":"invalid_request"}"#)?.category == .protocolViolation)
        #expect(refusal(500, "")?.category == .protocolViolation)
    }

    @Test func pollModeIsRequired() async throws {
        for modes in [["ping", "push"], ["ping"], []] as [[String]?] + [nil] {
            let t = server([Self.token])
            await expectError(category: .protocolViolation) {
                try await flow(t, metadata: Self.metadata(modes: modes)).run(try BackchannelAuthenticationRequest(loginHint: Self.hint))
            }
            #expect(t.sent.isEmpty, "nothing is sent to a provider without poll mode")
        }
        await expectError(category: .configuration) {
            try await flow(server([]), metadata: Self.metadata(endpoint: false)).run(
                try BackchannelAuthenticationRequest(loginHint: Self.hint))
        }
    }

    // MARK: Polling: the device flow's rules

    @Test func pollsAtTheIntervalThenSlowsDownByFive() async throws {
        let t = server([Self.pending, Reply.json(400, #"{"error":"slow_down"}"#), Self.pending, Self.token])
        let events = EventLog()
        _ = try await flow(t).run(try BackchannelAuthenticationRequest(loginHint: Self.hint), events: events.record)
        #expect(gaps(t) == [5, 5, 10, 10])
        #expect(events.slowDowns == [10])
    }

    @Test func aMissingIntervalPollsEveryFiveSeconds() async throws {
        let t = server([Self.pending, Self.token], start: Reply.json(200, #"{"auth_req_id":"r","expires_in":60}"#))
        _ = try await flow(t).run(try BackchannelAuthenticationRequest(loginHint: Self.hint))
        #expect(gaps(t) == [5, 5])
    }

    @Test func transientFailuresAreRetried() async throws {
        let t = server([Reply.empty(503), Self.token])
        let events = EventLog()
        _ = try await flow(t).run(try BackchannelAuthenticationRequest(loginHint: Self.hint), events: events.record)
        #expect(events.retries == 1)
        #expect(t.sent(to: "/token").count == 2)
    }

    @Test func endings() async throws {
        let request = try BackchannelAuthenticationRequest(loginHint: Self.hint)
        await expectError(category: .denied, code: "access_denied") {
            try await flow(server([Reply.json(400, #"{"error":"access_denied"}"#)])).run(request)
        }
        let expired = server([Reply.json(400, #"{"error":"expired_token"}"#), Reply.json(400, #"{"error":"invalid_grant"}"#)])
        await expectError(category: .expired, code: "expired_token") { try await flow(expired).run(request) }
        #expect(expired.sent(to: "/token").count == 1, "expired_token ends the wait")
        // Never approved: the client's own deadline (120 s) ends it, at the deadline.
        let never = server([Self.pending])
        await expectError(category: .expired) { try await flow(never).run(request) }
        #expect(clock.now().timeIntervalSince(never.sent[0].at) == 120)
        #expect(never.sent(to: "/token").count == 24)
        await expectError(category: .expired) { try await flow(server([Self.pending])).run(request, timeout: 12) }
    }

    // MARK: The ID token's auth_req_id (CIBA Core §7.4)

    func signIn(claim: JSONValue?) async throws -> StoredSession {
        let idp = try TestIssuer()
        let clock = self.clock
        let t = ScriptedTransport(clock: clock) { request, _ in
            switch request.url.path {
            case "/bc-authorize": return Self.started
            case "/token":
                var extra: [(String, JSONValue)] = [("at_hash", .string(AccessTokenHash.compute(accessToken: "at", algorithm: .es256)))]
                if let claim { extra.append((IDTokenVerifier.authRequestIDClaim, claim)) }
                let id = try idp.sign(TestIssuer.claims(now: clock.now(), extra: extra))
                return Reply.json(200, #"{"access_token":"at","token_type":"bearer","expires_in":3600,"id_token":"\#(id)"}"#)
            default: return Reply.empty(404)
            }
        }
        var configuration = testConfiguration(authMethod: .clientSecretPost)
        configuration.scopes = ["openid"]
        let session = Session(
            configuration: configuration, store: MemoryTokenStore(), transport: t, time: clock,
            random: CountingRandom(), clientSecret: "s3cret", keySet: try idp.keySet())
        return try await session.signIn(
            flow: .ciba, metadata: Self.metadata(),
            backchannel: try BackchannelAuthenticationRequest(loginHint: Self.hint))
    }

    @Test func theIDTokensAuthRequestIDMustBeOurs() async throws {
        #expect(try await signIn(claim: "req-1").subject == "user-1")
        #expect(try await signIn(claim: nil).subject == "user-1", "the claim is optional")
        for other: JSONValue in ["req-2", "req-1 ", .integer(1)] {
            do {
                _ = try await signIn(claim: other)
                Issue.record("accepted an ID token for request \(other)")
            } catch let error as LatchkeyError {
                guard case .verification(.authRequestIDMismatch) = error else { Issue.record("\(error)"); continue }
            }
        }
    }

    @Test func cibaWithoutALoginHintIsAConfigurationProblem() async throws {
        let session = Session(
            configuration: testConfiguration(authMethod: .clientSecretPost), store: MemoryTokenStore(),
            transport: server([]), time: clock, random: CountingRandom(), clientSecret: "s")
        await expectError(category: .configuration) { try await session.signIn(flow: .ciba, metadata: Self.metadata()) }
    }
}

/// The cross-device check: is the verification address on the issuer's site?
@Suite struct VerificationSiteTests {
    @Test(arguments: [
        ("id.example.com", "example.com"), ("EXAMPLE.com.", "example.com"), ("a.b.example.co.uk", "example.co.uk"),
        ("example.co.uk", "example.co.uk"), ("login.microsoftonline.com", "microsoftonline.com"),
        ("evil.github.io", "evil.github.io"), ("127.0.0.1", "127.0.0.1"), ("::1", "::1"), ("localhost", "localhost"),
        ("10.0.0.1", "10.0.0.1"), ("1.2.3.example", "3.example")
    ])
    func sites(host: String, site: String) {
        #expect(VerificationSite.site(of: host) == site)
    }

    @Test func matches() {
        func same(_ v: String, _ i: String) -> Bool { VerificationSite.matchesIssuer(verificationURI: v, issuer: i) }
        #expect(same("https://id.example.com/device", "https://login.example.com/realms/x"))
        #expect(same("https://www.google.com/device", "https://accounts.google.com"))
        #expect(same("https://github.com/login/device", "https://github.com"))
        #expect(same("https://microsoft.com/devicelogin", "https://login.microsoftonline.com/common/v2.0"), "Entra")
        #expect(same("http://127.0.0.1:8080/device", "http://127.0.0.1:9090/api/oidc"), "ports do not matter")
        #expect(!same("https://examp1e.com/device", "https://id.example.com"))
        #expect(!same("https://example.com.evil.net/device", "https://id.example.com"))
        #expect(!same("https://evil.github.io/device", "https://idp.github.io"))
        #expect(!same("https://other.co.uk/device", "https://id.example.co.uk"))
        #expect(!same("http://127.0.0.2/device", "http://127.0.0.1/api"))
        #expect(!same("http://localhost/device", "http://127.0.0.1/api"), "a name and an address are compared exactly")
        #expect(!same("not a url", "https://id.example.com"))
    }
}
