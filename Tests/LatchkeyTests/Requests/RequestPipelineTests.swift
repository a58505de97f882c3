import LatchkeyCrypto
import LatchkeyHTTP
import LatchkeyTesting
import Synchronization
import Testing

@testable import Latchkey

/// The open request pipeline: what authenticators see and change, the one retry, and transports per role.
@Suite struct RequestPipelineTests {
    let clock = VirtualClock()
    static let tokenURL = HTTPURL(string: "https://idp.example/token")!

    /// Records what it was given and adds a header carrying the time, a random value and the nonce.
    final class Recorder: RequestAuthenticator {
        let seen = Mutex<[(EndpointRole, Timestamp, String?)]>([])
        func authenticate(_ request: inout ProviderRequest, context: RequestContext) throws(LatchkeyError) {
            let nonce = context.serverNonce(for: request.url)
            seen.withLock { $0.append((request.role, context.now, nonce)) }
            guard request.role == .token else { return }
            request.setHeader("X-Proof", "\(context.now.epochSeconds):\(context.random.bytes(2)):\(nonce ?? "-")")
        }
        /// Takes up a nonce the way DPoP will (RFC 9449 §8): 400 use_dpop_nonce with a DPoP-Nonce header.
        func wantsRetry(after response: HTTPResponse, to request: ProviderRequest, context: RequestContext) -> Bool {
            guard response.status == 400, let nonce = response.header("DPoP-Nonce") else { return false }
            context.nonces.remember(nonce, for: request.url)
            return true
        }
    }

    /// Several authenticators as one client authentication, in order; any may ask for the retry.
    struct Each: RequestAuthenticator {
        let all: [any RequestAuthenticator]
        func authenticate(_ request: inout ProviderRequest, context: RequestContext) throws(LatchkeyError) {
            for authenticator in all { try authenticator.authenticate(&request, context: context) }
        }
        func wantsRetry(after response: HTTPResponse, to request: ProviderRequest, context: RequestContext) -> Bool {
            all.map { $0.wantsRetry(after: response, to: request, context: context) }.contains(true)
        }
    }

    func pipeline(_ transport: ScriptedTransport, _ authenticators: [any RequestAuthenticator]) -> SessionBinding {
        pipeline(EndpointTransports(transport), authenticators)
    }

    func pipeline(_ transports: EndpointTransports, _ authenticators: [any RequestAuthenticator]) -> SessionBinding {
        SessionBinding(clientAuthentication: Each(all: authenticators), transports: transports, time: clock, random: CountingRandom())
    }

    @Test func authenticatorsSeeTheRoleTimeRandomnessAndNonce() async throws {
        let t = ScriptedTransport(clock: clock) { _, _ in Reply.json(200, "{}") }
        let recorder = Recorder()
        _ = try await pipeline(t, [PublicClientAuthentication(clientID: "c"), recorder])
            .attempt(ProviderRequest(role: .token, url: Self.tokenURL, form: [("grant_type", "x")]))
        #expect(t.sent[0].form == ["grant_type": "x", "client_id": "c"])
        #expect(t.sent[0].header("X-Proof") == "\(clock.now().epochSeconds):[7, 38]:-")
        #expect(t.sent[0].header("Content-Type") == "application/x-www-form-urlencoded")
        #expect(t.sent[0].header("Accept") == "application/json")
        #expect(recorder.seen.withLock { $0.map(\.0) } == [.token])
    }

    @Test func aNonceAnswerIsRetriedExactlyOnceWithTheNonce() async throws {
        // The server asks for a nonce every time: one retry, never a loop.
        let t = ScriptedTransport(clock: clock) { _, i in
            Reply.json(400, #"{"error":"use_dpop_nonce"}"#, headers: [("DPoP-Nonce", "n\(i)")])
        }
        let response = try await pipeline(t, [Recorder()]).attempt(ProviderRequest(role: .token, url: Self.tokenURL))
        #expect(t.sent.count == 2)
        #expect(t.sent[0].header("X-Proof")?.hasSuffix(":-") == true)
        #expect(t.sent[1].header("X-Proof")?.hasSuffix(":n0") == true)
        #expect(response.header("DPoP-Nonce") == "n1")
    }

    @Test func theRememberedNonceGoesOnTheNextRequestToThatServerOnly() async throws {
        let t = ScriptedTransport(clock: clock) { _, _ in Reply.json(200, "{}") }
        let p = pipeline(t, [Recorder()])
        p.nonces.remember("kept", for: Self.tokenURL)
        _ = try await p.attempt(ProviderRequest(role: .token, url: Self.tokenURL))
        _ = try await p.attempt(ProviderRequest(role: .token, url: HTTPURL(string: "https://other.example/token")!))
        #expect(t.sent[0].header("X-Proof")?.hasSuffix(":kept") == true)
        #expect(t.sent[1].header("X-Proof")?.hasSuffix(":-") == true)
    }

    @Test func clientAuthenticationGoesOnlyWhereTheClientAuthenticates() async throws {
        let t = ScriptedTransport(clock: clock) { _, _ in Reply.json(200, "{}") }
        let p = pipeline(t, [ClientSecretAuthentication(clientID: "c", secret: "s", placement: .basic)])
        for role in EndpointRole.allCases {
            _ = try await p.attempt(ProviderRequest(role: role, method: "GET", url: Self.tokenURL))
        }
        let withBasic = t.sent.enumerated().filter { $0.element.header("Authorization") != nil }.map { EndpointRole.allCases[$0.offset] }
        #expect(Set(withBasic) == [.token, .revocation, .pushedAuthorization, .deviceAuthorization, .backchannelAuthentication])
    }

    @Test func theThreeMethodsAuthenticateAsBefore() throws {
        var basic = ProviderRequest(role: .token, url: Self.tokenURL)
        let context = RequestContext(now: clock.now(), random: CountingRandom(), nonces: ServerNonces())
        // RFC 6749 §2.3.1: form-encode both parts before Base64 (" " → "%20", ":" → "%3A").
        try ClientSecretAuthentication(clientID: "a b", secret: "x:y", placement: .basic).authenticate(&basic, context: context)
        #expect(basic.header("authorization") == "Basic " + Base64.encode(Array("a%20b:x%3Ay".utf8)))
        #expect(basic.form.isEmpty)
        var post = ProviderRequest(role: .token, url: Self.tokenURL)
        try ClientSecretAuthentication(clientID: "c", secret: "s", placement: .post).authenticate(&post, context: context)
        #expect(post.form.map { "\($0.0)=\($0.1)" } == ["client_id=c", "client_secret=s"])
        #expect(throws: LatchkeyError.self) { try ClientAuthMethod.clientSecretPost.authenticator(clientID: "c", secret: nil) }
    }

    @Test func eachRoleUsesItsOwnTransport() async throws {
        let plain = ScriptedTransport(clock: clock) { _, _ in Reply.json(200, "{}") }
        let certified = ScriptedTransport(clock: clock) { _, _ in Reply.json(200, "{}") }
        let transports = EndpointTransports(plain).using(certified, for: [.token, .revocation])
        let p = pipeline(transports, [])
        for role in [EndpointRole.discovery, .jwks, .token, .deviceAuthorization, .revocation, .resource] {
            _ = try await p.attempt(ProviderRequest(role: role, method: "GET", url: Self.tokenURL))
        }
        #expect(certified.sent.count == 2)
        #expect(plain.sent.count == 4)
    }

    @Test func logoutRevokesOverTheRevocationTransport() async throws {
        let store = MemoryTokenStore(SessionTests().stored(expiresIn: 3600))
        let plain = ScriptedTransport(clock: clock) { _, _ in Reply.empty(500) }
        let revocation = ScriptedTransport(clock: clock) { _, _ in Reply.empty(200) }
        let session = Session(
            configuration: testConfiguration(), store: store,
            transports: EndpointTransports(plain).using(revocation, for: [.revocation]),
            time: clock, random: CountingRandom())
        let warnings = try await session.logout()
        #expect(warnings.isEmpty)
        #expect(revocation.sent.count == 2)
        #expect(plain.sent.isEmpty)
    }
}
