import FoundationEssentials
import LatchkeyHTTP
import LatchkeyTesting
import Testing

@testable import Latchkey

/// The client-credentials grant (RFC 6749 §4.4): sign-in, what is stored, and renewal by running
/// the grant again under the refresh rules (single-flight, the store's lock).
@Suite struct ClientCredentialsTests {
    let clock = VirtualClock()

    func configuration() -> ClientConfiguration {
        var c = ClientConfiguration(
            issuer: TestIssuer.issuer, clientID: "machine-1", scopes: ["openid", "offline_access", "machine"],
            authMethod: .clientSecretBasic)
        c.resources = ["https://api.example/v1"]
        return c
    }

    func session(_ store: any TokenStore, _ t: ScriptedTransport, configuration: ClientConfiguration? = nil) -> Session {
        Session(
            configuration: configuration ?? self.configuration(), store: store, transport: t, time: clock,
            random: CountingRandom(), clientSecret: "machine-secret")
    }

    /// A token endpoint that answers each client-credentials request with at-N, after a short real
    /// delay so concurrent callers overlap. It also sends a refresh token and an ID token, which a
    /// client-credentials client must not keep.
    func server() -> ScriptedTransport {
        ScriptedTransport(clock: clock) { r, index in
            guard r.url.path == "/token" else { return Reply.empty(404) }
            try await Task.sleep(nanoseconds: 20_000_000)
            return Reply.json(
                200,
                #"{"access_token":"at-\#(index + 1)","token_type":"bearer","expires_in":300,"scope":"machine","refresh_token":"rt-x","id_token":"h.p.s"}"#
            )
        }
    }

    func storedMachineSession(expiresIn: Double) -> StoredSession {
        var s = StoredSession(
            profile: "default", issuer: TestIssuer.issuer, clientID: "machine-1",
            token: Token(accessToken: "at-0", expiresAt: clock.now().addingTimeInterval(expiresIn), scope: "machine"),
            subject: "machine-1", metadata: testMetadata(), createdAt: clock.now(), updatedAt: clock.now())
        s.grant = .clientCredentials
        return s
    }

    @Test func signInSendsTheGrantAndStoresTheClientAsSubject() async throws {
        let store = MemoryTokenStore()
        let t = server()
        let events = EventLog()
        let s = try await session(store, t).signIn(flow: .clientCredentials, metadata: testMetadata(), events: events.record)
        let authorized = events.all.last
        let sent = try #require(t.sent.first)
        #expect(t.sent.count == 1)
        #expect(sent.form["grant_type"] == "client_credentials")
        // No person: openid and offline_access are not asked for.
        #expect(sent.form["scope"] == "machine")
        #expect(sent.form["resource"] == "https://api.example/v1")
        #expect(sent.header("Authorization")?.hasPrefix("Basic ") == true)
        #expect(s.grant == .clientCredentials && s.subject == "machine-1")
        #expect(s.token.refreshToken == nil && s.token.idToken == nil, "a refresh or ID token sent anyway is not kept")
        #expect(store.session?.grant == .clientCredentials)
        guard case .authorized(_, let subject, _, _, let verified, _)? = authorized else {
            Issue.record("\(String(describing: authorized))"); return
        }
        #expect(subject == "machine-1" && !verified)
    }

    @Test func aPublicClientIsRefusedBeforeAnythingIsSent() async {
        let t = server()
        var c = configuration()
        c.authMethod = .none
        let s = Session(configuration: c, store: MemoryTokenStore(), transport: t, time: clock, random: CountingRandom())
        await expectError(category: .configuration) { try await s.signIn(flow: .clientCredentials) }
        #expect(t.sent.isEmpty)
    }

    @Test func anExpiringTokenIsRenewedByRunningTheGrantAgain() async throws {
        let store = MemoryTokenStore(storedMachineSession(expiresIn: 30))
        let t = server()
        let token = try await session(store, t).validToken(minTTL: 60)
        #expect(token.accessToken == "at-1")
        #expect(t.sent.count == 1 && t.sent[0].form["grant_type"] == "client_credentials")
        #expect(store.session?.grant == .clientCredentials && store.session?.token.refreshToken == nil)
        #expect(store.session?.subject == "machine-1")
        // A valid token is served from the store without a request.
        _ = try await session(store, t).validToken(minTTL: 60)
        #expect(t.sent.count == 1)
    }

    @Test func thirtyTwoConcurrentCallersAtExpiryMakeOneRequest() async throws {
        let store = MemoryTokenStore(storedMachineSession(expiresIn: 10))
        let t = server()
        let s = session(store, t)
        let other = session(store, t)  // another "process" on the same lockable store
        let tokens = try await withThrowingTaskGroup(of: String.self) { group in
            for i in 0..<32 { group.addTask { try await (i % 2 == 0 ? s : other).validToken().accessToken } }
            return try await group.reduce(into: [String]()) { $0.append($1) }
        }
        #expect(t.sent(to: "/token").count == 1)
        #expect(Set(tokens) == ["at-1"])
        #expect(store.saves.count == 1)
    }

    @Test func aRefusedRenewalKeepsTheSessionAndSaysWhy() async throws {
        let store = MemoryTokenStore(storedMachineSession(expiresIn: 0))
        let t = ScriptedTransport(clock: clock) { _, _ in Reply.json(401, #"{"error":"invalid_client"}"#) }
        await expectError(category: .protocolViolation, code: "invalid_client") { try await session(store, t).validToken() }
        #expect(store.session != nil, "nothing a person can sign in again to fix: the session is not deleted")
    }

    @Test func aPersonsSessionStillNeedsARefreshToken() async throws {
        var stored = storedMachineSession(expiresIn: 0)
        stored.grant = .authorization
        let store = MemoryTokenStore(stored)
        let t = server()
        await expectError(category: .signInRequired) { try await session(store, t).validToken() }
        #expect(t.sent.isEmpty)
    }
}
