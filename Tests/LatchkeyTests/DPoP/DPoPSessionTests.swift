import LatchkeyCrypto
import LatchkeyHTTP
import LatchkeyJOSE
import LatchkeyTesting
import Testing

@testable import Latchkey

/// DPoP through the pipeline, the token client, the session and `AuthorizedTransport`.
@Suite struct DPoPSessionTests {
    let clock = VirtualClock()
    static let tokenURL = HTTPURL(string: "https://idp.example/token")!

    func dpopMetadata() -> ProviderMetadata {
        var m = testMetadata()
        m.dpopSigningAlgValuesSupported = ["ES256"]
        return m
    }

    func client(_ t: ScriptedTransport, key: DPoPKey?, mode: DPoPMode = .auto) -> TokenClient {
        var c = testConfiguration()
        c.dpop = mode
        return TokenClient(
            configuration: c, metadata: dpopMetadata(),
            binding: SessionBinding(
                clientAuthentication: PublicClientAuthentication(clientID: c.clientID), dpopKey: key,
                transports: EndpointTransports(t), time: clock, random: SequenceRandom()))
    }

    static func claims(_ request: ScriptedTransport.SentRequest) throws -> JSONObject {
        try DPoPProofTests.verified(try #require(request.header("DPoP"))).claims
    }

    static func dpopToken(_ at: String = "at") -> HTTPResponse {
        Reply.json(200, #"{"access_token":"\#(at)","token_type":"DPoP","expires_in":3600,"refresh_token":"rt"}"#)
    }

    /// A JWT-shaped access token with `cnf.jkt` (signature irrelevant: the client only reads it).
    static func jwtAccessToken(jkt: String) -> String {
        "eyJhbGciOiJFUzI1NiJ9." + Base64URL.encode(Array(#"{"sub":"u","cnf":{"jkt":"\#(jkt)"}}"#.utf8)) + ".c2ln"
    }

    // MARK: Pipeline and nonces

    @Test func tokenRequestsCarryAProofAndDeviceAuthorizationDoesNot() async throws {
        let key = try DPoPKey(random: CountingRandom())
        let t = ScriptedTransport(clock: clock) { r, _ in r.url.path == "/token" ? Self.dpopToken() : DeviceFlowTests.standardDevice }
        let c = client(t, key: key)
        _ = try await c.binding.attempt(ProviderRequest(role: .deviceAuthorization, url: HTTPURL(string: "https://idp.example/device")!))
        let token = try await c.refresh(refreshToken: "rt")
        #expect(t.sent[0].header("DPoP") == nil)
        let claims = try Self.claims(t.sent[1])
        #expect(claims["htm"] == .string("POST") && claims["htu"] == .string("https://idp.example/token") && claims["ath"] == nil)
        #expect(token.tokenType == "DPoP")
    }

    @Test func aTokenEndpointNonceIsRetriedOnceAndRemembered() async throws {
        let key = try DPoPKey(random: CountingRandom())
        let t = ScriptedTransport(
            clock: clock,
            script: [
                .reply(Reply.json(400, #"{"error":"use_dpop_nonce"}"#, headers: [("DPoP-Nonce", "n-1")])),
                .reply(Self.dpopToken()),
                .reply(Self.dpopToken("at-2"))
            ])
        let c = client(t, key: key)
        _ = try await c.refresh(refreshToken: "rt")
        #expect(t.sent.count == 2)
        #expect(try Self.claims(t.sent[0])["nonce"] == nil)
        #expect(try Self.claims(t.sent[1])["nonce"] == .string("n-1"))
        #expect(try Self.claims(t.sent[0])["jti"] != (try Self.claims(t.sent[1])["jti"]))
        // The next request to that server carries the nonce from the start.
        _ = try await c.refresh(refreshToken: "rt")
        #expect(try Self.claims(t.sent[2])["nonce"] == .string("n-1"))
        #expect(c.binding.nonces.all == ["https://idp.example": "n-1"])
    }

    @Test func aSecondNonceErrorIsAProtocolViolation() async throws {
        let key = try DPoPKey(random: CountingRandom())
        let t = ScriptedTransport(clock: clock) { _, i in
            Reply.json(400, #"{"error":"use_dpop_nonce"}"#, headers: [("DPoP-Nonce", "n-\(i)")])
        }
        await #expect(throws: LatchkeyError.self) { _ = try await client(t, key: key).refresh(refreshToken: "rt") }
        do { _ = try await client(t, key: key).refresh(refreshToken: "rt") } catch {
            guard case .tokenBinding(.nonceRequestedTwice(.token)) = error else { Issue.record("got \(error)"); return }
            #expect(error.category == .protocolViolation)
        }
        #expect(t.sent.count == 4)
    }

    // MARK: Binding checks

    @Test func bindingChecks() throws {
        let key = try DPoPKey(random: CountingRandom())
        let bearer = TokenResponse(accessToken: "a", tokenType: "Bearer")
        let dpop = TokenResponse(accessToken: "a", tokenType: "DPoP")
        // auto: a Bearer answer is accepted (binding none); always: refused.
        try TokenBindingCheck.check(bearer, proofKey: key, requireBinding: false)
        #expect(throws: LatchkeyError.self) { try TokenBindingCheck.check(bearer, proofKey: key, requireBinding: true) }
        // A DPoP token without a proof cannot be used.
        #expect(throws: LatchkeyError.self) { try TokenBindingCheck.check(dpop, proofKey: nil, requireBinding: false) }
        try TokenBindingCheck.check(dpop, proofKey: key, requireBinding: true)
        // cnf.jkt must be our thumbprint.
        try TokenBindingCheck.check(
            TokenResponse(accessToken: Self.jwtAccessToken(jkt: key.thumbprint), tokenType: "DPoP"),
            proofKey: key, requireBinding: true)
        let foreign = TokenResponse(accessToken: Self.jwtAccessToken(jkt: "not-ours"), tokenType: "DPoP")
        do { try TokenBindingCheck.check(foreign, proofKey: key, requireBinding: false); Issue.record("accepted a foreign cnf.jkt") } catch
        {
            guard case .tokenBinding(.thumbprintMismatch(let e, let g)) = error else { Issue.record("got \(error)"); return }
            #expect(e == key.thumbprint && g == "not-ours")
        }
    }

    @Test func tokenTypeDPoPIsParsedInAnyCase() {
        guard case .token(let t) = TokenResponse.parse(Reply.json(200, #"{"access_token":"a","token_type":"dpop"}"#)) else {
            Issue.record("refused"); return
        }
        #expect(t.tokenType == "DPoP")
        guard case .error = TokenResponse.parse(Reply.json(200, #"{"access_token":"a","token_type":"MAC"}"#)) else {
            Issue.record("accepted MAC"); return
        }
    }

    @Test func alwaysRefusesABearerAnswerFromTheServer() async throws {
        let key = try DPoPKey(random: CountingRandom())
        let t = ScriptedTransport(clock: clock) { _, _ in DeviceFlowTests.token }
        await #expect(throws: LatchkeyError.self) { _ = try await client(t, key: key, mode: .always).refresh(refreshToken: "rt") }
        _ = try await client(t, key: key, mode: .auto).refresh(refreshToken: "rt")
    }

    // MARK: Session

    func provider(tokenType: String = "DPoP", metadataDPoP: Bool = true) -> ScriptedTransport {
        ScriptedTransport(clock: clock) { r, i in
            switch r.url.path {
            case "/.well-known/openid-configuration":
                let dpop = metadataDPoP ? #","dpop_signing_alg_values_supported":["ES256"]"# : ""
                return Reply.json(
                    200,
                    #"{"issuer":"https://idp.example","token_endpoint":"https://idp.example/token","device_authorization_endpoint":"https://idp.example/device","revocation_endpoint":"https://idp.example/revoke","jwks_uri":"https://idp.example/jwks"\#(dpop)}"#
                )
            case "/device": return DeviceFlowTests.standardDevice
            case "/revoke": return Reply.empty(200)
            case "/token":
                return Reply.json(
                    200, #"{"access_token":"at-\#(i)","token_type":"\#(tokenType)","expires_in":3600,"refresh_token":"rt-\#(i)"}"#,
                    headers: [("DPoP-Nonce", "as-\(i)")])
            default: return Reply.empty(404)
            }
        }
    }

    func session(_ store: MemoryTokenStore, _ t: ScriptedTransport, mode: DPoPMode = .auto, scopes: [String] = ["openid"]) -> Session {
        var c = testConfiguration()
        c.dpop = mode
        c.scopes = scopes
        return Session(configuration: c, store: store, transport: t, time: clock, random: SequenceRandom())
    }

    @Test func signInMakesAKeyStoresItAndRefreshAndRevocationUseIt() async throws {
        let t = provider()
        let store = MemoryTokenStore()
        let events = EventLog()
        let s = session(store, t)
        let saved = try await s.signIn(events: events.record)
        let binding = try #require(saved.dpop)
        let key = try binding.key(random: CountingRandom())
        #expect(saved.token.tokenType == "DPoP")
        #expect(binding.nonces["https://idp.example"] != nil)
        guard case .authorized(_, _, _, _, _, let tokenBinding) = events.all.last else { Issue.record("no authorized event"); return }
        #expect(tokenBinding == .dpop)
        #expect(t.sent(to: "/device")[0].header("DPoP") == nil)
        let signInProof = try DPoPProofTests.verified(try #require(t.sent(to: "/token").last?.header("DPoP")))
        #expect(signInProof.jwk.thumbprint() == key.thumbprint)

        // A refresh proves possession of the same key, with the remembered nonce.
        _ = try await s.refresh()
        let refreshProof = try DPoPProofTests.verified(try #require(t.sent(to: "/token").last?.header("DPoP")))
        #expect(refreshProof.jwk.thumbprint() == key.thumbprint)
        #expect(refreshProof.claims["nonce"] != nil)
        #expect(store.session?.dpop?.privateScalar.bytes == binding.privateScalar.bytes)

        // So does a new Session over the same store (another process): the key is in the file.
        let other = session(store, t)
        _ = try await other.refresh()
        #expect(try DPoPProofTests.verified(try #require(t.sent(to: "/token").last?.header("DPoP"))).jwk.thumbprint() == key.thumbprint)

        // Revocation carries proofs; logout deletes the key with the file.
        _ = try await other.logout()
        #expect(t.sent(to: "/revoke").allSatisfy { $0.header("DPoP") != nil } && !t.sent(to: "/revoke").isEmpty)
        #expect(store.session == nil)
    }

    /// Glewlwyd refuses a public client's client_id-only revocation (401); the fallback presents the
    /// bound access token as `DPoP`, so its proof must carry that token's `ath` (RFC 9449 §7.1).
    @Test func theRevocationFallbackProvesTheAccessTokenWithAth() async throws {
        let base = provider()
        let t = ScriptedTransport(clock: clock) { r, i in
            let authorized = r.headers.contains { $0.name == "Authorization" }
            if r.url.path == "/revoke" && !authorized { return Reply.json(401, #"{"error":"invalid_client"}"#) }
            return try await base.send(r)
        }
        let store = MemoryTokenStore()
        let s = session(store, t)
        let saved = try await s.signIn()
        _ = try await s.logout()
        let fallback = t.sent(to: "/revoke").filter { $0.header("Authorization") != nil }
        #expect(fallback.count == 2)
        for request in fallback {
            #expect(request.header("Authorization") == "DPoP " + saved.token.accessToken)
            let proof = try DPoPProofTests.verified(try #require(request.header("DPoP")))
            #expect(proof.claims["ath"] == JSONValue.string(DPoPTarget.accessTokenHash(saved.token.accessToken)))
        }
    }

    @Test func twoSignInsMakeTwoKeys() async throws {
        let t = provider()
        let s = session(MemoryTokenStore(), t)
        let a = try await s.signIn()
        let b = try await s.signIn()
        #expect(try a.dpop!.key(random: CountingRandom()).thumbprint != (try b.dpop!.key(random: CountingRandom()).thumbprint))
    }

    @Test func autoWithoutES256InTheMetadataSendsNoProof() async throws {
        let t = provider(tokenType: "Bearer", metadataDPoP: false)
        let saved = try await session(MemoryTokenStore(), t).signIn()
        #expect(saved.dpop == nil && t.sent(to: "/token").allSatisfy { $0.header("DPoP") == nil })
    }

    @Test func autoAcceptsABearerAnswerAndKeepsNoKey() async throws {
        let t = provider(tokenType: "Bearer")
        let events = EventLog()
        let saved = try await session(MemoryTokenStore(), t).signIn(events: events.record)
        #expect(saved.dpop == nil && TokenBinding(saved.token) == .none)
        guard case .authorized(_, _, _, _, _, let tokenBinding) = events.all.last else { Issue.record("no authorized event"); return }
        #expect(tokenBinding == .none)
    }

    @Test func alwaysRefusesABearerSignInAndSavesNothing() async throws {
        let store = MemoryTokenStore()
        await #expect(throws: LatchkeyError.self) { _ = try await session(store, provider(tokenType: "Bearer"), mode: .always).signIn() }
        #expect(store.session == nil)
    }

    @Test func offlineAccessWithoutDPoPWarnsOrIsRefused() async throws {
        let t = provider(tokenType: "Bearer", metadataDPoP: false)
        let events = EventLog()
        _ = try await session(MemoryTokenStore(), t, scopes: ["openid", "offline_access"]).signIn(events: events.record)
        #expect(
            events.all.contains {
                if case .offlineAccessWithoutDPoP = $0 { return true }; return false
            })
        let before = t.sent.count
        do {
            _ = try await session(MemoryTokenStore(), t, scopes: ["openid", "offline_access"]).signIn(offlineAccess: .requireDPoP)
            Issue.record("signed in")
        } catch {
            guard case .configuration(.offlineAccessWithoutDPoP) = error else { Issue.record("got \(error)"); return }
        }
        // Refused after discovery, before the device request: nothing for the person to approve.
        #expect(t.sent[before...].allSatisfy { $0.path == "/.well-known/openid-configuration" })
        // With DPoP there is no warning.
        let bound = EventLog()
        _ = try await session(MemoryTokenStore(), provider(), scopes: ["openid", "offline_access"]).signIn(events: bound.record)
        #expect(
            !bound.all.contains {
                if case .offlineAccessWithoutDPoP = $0 { return true }; return false
            })
    }

    /// The warning is never given before a sign-in has succeeded: it follows the saved session,
    /// right before `.authorized`, and a refused sign-in reports none.
    static func isWarning(_ e: LoginEvent) -> Bool { if case .offlineAccessWithoutDPoP = e { return true }; return false }

    @Test func theOfflineAccessWarningFollowsASuccessfulSignInOnly() async throws {
        let store = MemoryTokenStore()
        let events = EventLog()
        let t = provider(tokenType: "Bearer", metadataDPoP: false)
        let s = session(store, t, scopes: ["openid", "offline_access"])
        let record = events.record
        _ = try await s.signIn(events: { e in
            // Reported only once the session is stored.
            if Self.isWarning(e) { #expect(store.session != nil, "warned before the session was saved") }
            record(e)
        })
        let all = events.all
        #expect(all.firstIndex(where: Self.isWarning) == all.count - 2, "\(all)")
        #expect(
            all.first.map {
                if case .verification = $0 { return true }; return false
            } == true, "\(all)")

        let denied = ScriptedTransport(clock: clock) { r, _ in
            switch r.url.path {
            case "/.well-known/openid-configuration":
                return Reply.json(
                    200,
                    #"{"issuer":"https://idp.example","token_endpoint":"https://idp.example/token","device_authorization_endpoint":"https://idp.example/device","jwks_uri":"https://idp.example/jwks"}"#
                )
            case "/device": return DeviceFlowTests.standardDevice
            default: return Reply.json(400, #"{"error":"access_denied"}"#)
            }
        }
        let refused = EventLog()
        await #expect(throws: LatchkeyError.self) {
            _ = try await session(MemoryTokenStore(), denied, scopes: ["openid", "offline_access"]).signIn(events: refused.record)
        }
        #expect(!refused.all.contains(where: Self.isWarning), "\(refused.all)")
    }

    @Test func theCodeFlowSendsDpopJkt() throws {
        let key = try DPoPKey(random: CountingRandom())
        let t = ScriptedTransport(clock: clock) { _, _ in Reply.empty(500) }
        let request = try AuthorizationCodeFlow(client: client(t, key: key), random: CountingRandom())
            .makeRequest(redirectURI: "http://127.0.0.1:9/cb")
        #expect(request.url.query?.contains("dpop_jkt=" + key.thumbprint) == true)
        let plain = try AuthorizationCodeFlow(client: client(t, key: nil), random: CountingRandom()).makeRequest(
            redirectURI: "http://127.0.0.1:9/cb")
        #expect(plain.url.query?.contains("dpop_jkt") == false)
    }

    // MARK: Resource requests

    struct FixedSource: TokenSource {
        let token: Token
        func token(replacing rejected: Token?) async throws(LatchkeyError) -> Token { token }
    }

    @Test func authorizedTransportSendsDPoPWithAthAndRetriesTheResourceNonceOnce() async throws {
        let t = provider()
        let store = MemoryTokenStore()
        let s = session(store, t)
        let saved = try await s.signIn()
        let api = ScriptedTransport(
            clock: clock,
            script: [
                .reply(
                    HTTPResponse(
                        status: 401,
                        headers: [
                            ("WWW-Authenticate", #"DPoP error="use_dpop_nonce", error_description="nonce""#),
                            ("DPoP-Nonce", "rs-1")
                        ], url: HTTPURL(string: "https://api.example/r")!)),
                .reply(Reply.json(200, "{}"))
            ])
        let transport = AuthorizedTransport(base: api, source: s, allowed: [HTTPURL(string: "https://api.example")!])
        let response = try await transport.send(HTTPRequest(method: "GET", url: HTTPURL(string: "https://api.example/r?q=1")!))
        #expect(response.status == 200 && api.sent.count == 2)
        #expect(api.sent[0].header("Authorization") == "DPoP " + saved.token.accessToken)
        let first = try Self.claims(api.sent[0]), second = try Self.claims(api.sent[1])
        #expect(first["ath"] == .string(DPoPTarget.accessTokenHash(saved.token.accessToken)))
        #expect(first["htm"] == .string("GET") && first["htu"] == .string("https://api.example/r"))
        #expect(first["nonce"] == nil && second["nonce"] == .string("rs-1"))
    }

    @Test func aSecondResourceNonceErrorIsAProtocolViolation() async throws {
        let s = session(MemoryTokenStore(), provider())
        _ = try await s.signIn()
        let api = ScriptedTransport(clock: clock) { r, i in
            HTTPResponse(
                status: 401, headers: [("WWW-Authenticate", #"DPoP error="use_dpop_nonce""#), ("DPoP-Nonce", "rs-\(i)")], url: r.url)
        }
        let transport = AuthorizedTransport(base: api, source: s, allowed: [HTTPURL(string: "https://api.example")!])
        do {
            _ = try await transport.send(HTTPRequest(method: "GET", url: HTTPURL(string: "https://api.example/r")!))
            Issue.record("no error")
        } catch let error as LatchkeyError {
            guard case .tokenBinding(.nonceRequestedTwice(.resource)) = error else { Issue.record("got \(error)"); return }
        }
        #expect(api.sent.count == 2)
    }

    /// One definition of a new nonce for both roads (`ServerNonces.remember`): a server that
    /// answers `use_dpop_nonce` with the nonce the proof already carried is not converging, so no
    /// retry is spent on it, at the token endpoint and at a resource alike.
    @Test func aRepeatedNonceEarnsNoRetryAtTheProviderOrAResource() async throws {
        let key = try DPoPKey(random: CountingRandom())
        let idp = ScriptedTransport(clock: clock) { _, _ in
            Reply.json(400, #"{"error":"use_dpop_nonce"}"#, headers: [("DPoP-Nonce", "same")])
        }
        let c = client(idp, key: key)
        c.binding.nonces.remember("same", for: HTTPURL(string: "https://idp.example/token")!)
        do {
            _ = try await c.refresh(refreshToken: "rt")
            Issue.record("no error")
        } catch {
            guard case .tokenBinding(.nonceRequestedTwice(.token)) = error else { Issue.record("got \(error)"); return }
        }
        #expect(idp.sent.count == 1)

        let s = session(MemoryTokenStore(), provider())
        _ = try await s.signIn()
        let api = ScriptedTransport(clock: clock) { r, _ in
            HTTPResponse(
                status: 401, headers: [("WWW-Authenticate", #"DPoP error="use_dpop_nonce""#), ("DPoP-Nonce", "rs-same")], url: r.url)
        }
        let transport = AuthorizedTransport(base: api, source: s, allowed: [HTTPURL(string: "https://api.example")!])
        let url = HTTPURL(string: "https://api.example/r")!
        await s.rememberNonce("rs-same", for: url)
        do {
            _ = try await transport.send(HTTPRequest(method: "GET", url: url))
            Issue.record("no error")
        } catch let error as LatchkeyError {
            guard case .tokenBinding(.nonceRequestedTwice(.resource)) = error else { Issue.record("got \(error)"); return }
        }
        #expect(api.sent.count == 1, "a nonce the proof already carried was retried")
        #expect(try Self.claims(api.sent[0])["nonce"] == .string("rs-same"))
    }

    @Test func aBoundTokenWithoutAProofSourceIsNeverSentAsBearer() async throws {
        let api = ScriptedTransport(clock: clock) { _, _ in Reply.json(200, "{}") }
        let transport = AuthorizedTransport(
            base: api, source: FixedSource(token: Token(accessToken: "x", tokenType: "DPoP")),
            allowed: [HTTPURL(string: "https://api.example")!])
        await #expect(throws: LatchkeyError.self) {
            _ = try await transport.send(HTTPRequest(method: "GET", url: HTTPURL(string: "https://api.example/r")!))
        }
        #expect(api.sent.isEmpty)
    }
}
