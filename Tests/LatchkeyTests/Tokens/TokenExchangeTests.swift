import LatchkeyCrypto
import LatchkeyHTTP
import LatchkeyJOSE
import LatchkeyTesting
import Testing

@testable import Latchkey

/// RFC 8693 token exchange: the request's form, the answer's parsing (idpyoidc 5.0.0's shapes),
/// and `Session.exchange`'s cache (LRU of 16, single-flight, reused while fresh), DPoP proof and
/// actor token.
@Suite struct TokenExchangeTests {
    let clock = VirtualClock()

    static func jwt(_ claims: String) -> String {
        "eyJhbGciOiJFUzI1NiJ9." + Base64URL.encode(Array(claims.utf8)) + ".c2ln"
    }

    func stored(dpop: Bool = false) -> StoredSession {
        let now = clock.now()
        return StoredSession(
            profile: "default", issuer: TestIssuer.issuer, clientID: TestIssuer.clientID,
            token: Token(
                accessToken: dpop ? "at-dpop" : "at-1", tokenType: dpop ? "DPoP" : "Bearer", refreshToken: "rt-1",
                expiresAt: now.addingTimeInterval(3600), scope: "openid offline_access", idToken: "h.p.s"),
            subject: "user-1", metadata: testMetadata(), createdAt: now, updatedAt: now,
            dpop: dpop ? DPoPBinding(privateScalar: SecretBytes(Array(1...32)), nonces: [:]) : nil)
    }

    func session(_ store: any TokenStore, _ transport: ScriptedTransport) -> Session {
        Session(configuration: testConfiguration(), store: store, transport: transport, time: clock, random: CountingRandom())
    }

    /// A token endpoint that issues an exchanged JWT naming the asked audience, after a short real
    /// delay so that concurrent callers overlap.
    func exchangingServer() -> ScriptedTransport {
        let clock = self.clock
        return ScriptedTransport(clock: clock) { r, index in
            guard r.url.path == "/token" else { return Reply.empty(404) }
            try await Task.sleep(nanoseconds: 20_000_000)
            let form = FormURLEncoding.decode(String(decoding: r.body, as: UTF8.self))
            let audience = form.first { $0.0 == "audience" }?.1 ?? "none"
            let exp = Int64(clock.now().timeIntervalSince1970) + 600
            let token = Self.jwt(#"{"sub":"user-1","aud":["\#(audience)"],"exp":\#(exp),"n":\#(index)}"#)
            return Reply.json(
                200,
                #"{"access_token":"\#(token)","issued_token_type":"urn:ietf:params:oauth:token-type:access_token","token_type":"Bearer","expires_in":3600,"scope":"read"}"#
            )
        }
    }

    // MARK: The request

    @Test func theFormNamesEverythingAskedForWithShortTypesExpanded() {
        let request = TokenExchange(
            actor: (token: "actor-jwt", type: "jwt"), audiences: ["api-a", "api-b"], resources: ["https://api.example/"],
            scope: "read", requestedTokenType: "refresh_token")
        let form = request.parameters(subjectToken: "subject", subjectType: TokenExchange.accessTokenType)
        #expect(
            form.map(\.0) == [
                "grant_type", "resource", "audience", "audience", "scope", "requested_token_type", "subject_token",
                "subject_token_type", "actor_token", "actor_token_type"
            ])
        #expect(
            form.map(\.1) == [
                "urn:ietf:params:oauth:grant-type:token-exchange", "https://api.example/", "api-a", "api-b", "read",
                "urn:ietf:params:oauth:token-type:refresh_token", "subject", "urn:ietf:params:oauth:token-type:access_token",
                "actor-jwt", "urn:ietf:params:oauth:token-type:jwt"
            ])
        #expect(TokenExchange.tokenType("urn:example:custom") == "urn:example:custom")
        #expect(TokenExchange().requestedType == TokenExchange.accessTokenType)
    }

    @Test func onlyAccessTokensForTheSessionsOwnTokenAreCacheable() {
        #expect(TokenExchange(audiences: ["a"]).isCacheable)
        #expect(TokenExchange(requestedTokenType: "jwt").isCacheable)
        #expect(!TokenExchange(requestedTokenType: "refresh_token").isCacheable)
        #expect(!TokenExchange(requestedTokenType: "id_token").isCacheable)
        #expect(!TokenExchange(subject: .refreshToken).isCacheable)
        #expect(!TokenExchange(subject: .given(token: "t", type: "jwt")).isCacheable)
        #expect(!TokenExchange(actor: (token: "t", type: "jwt")).isCacheable)
        // Order and repeats do not make another entry.
        #expect(
            TokenExchange(audiences: ["b", "a", "a"], scope: "y x").cacheKey == TokenExchange(audiences: ["a", "b"], scope: "x y").cacheKey)
    }

    // MARK: The answer

    static func parse(_ body: String, status: Int = 200, audiences: [String] = []) -> TokenExchangeAnswer.Outcome {
        TokenExchangeAnswer.parse(Reply.json(status, body), audiences: audiences, at: Timestamp(timeIntervalSince1970: 1_000_000))
    }

    @Test func idpyoidcsAnswerParsesAndTheJWTsExpWinsOverExpiresIn() throws {
        let token = Self.jwt(#"{"aud":["api"],"exp":1000300}"#)
        let outcome = Self.parse(
            #"{"access_token":"\#(token)","issued_token_type":"urn:ietf:params:oauth:token-type:access_token","token_type":"Bearer","expires_in":3600,"scope":"openid"}"#
        )
        guard case .token(let t) = outcome else { Issue.record("got \(outcome)"); return }
        #expect(t.expiresAt == Timestamp(timeIntervalSince1970: 1_000_300))
        #expect(t.audience == ["api"] && t.scope == "openid" && t.tokenType == "Bearer")
        // An opaque token: expires_in, and the audiences asked for.
        let opaque = Self.parse(
            #"{"access_token":"opaque","issued_token_type":"urn:ietf:params:oauth:token-type:access_token","token_type":"bearer","expires_in":"60"}"#,
            audiences: ["asked"])
        #expect(
            opaque
                == .token(
                    ExchangedToken(
                        token: "opaque", issuedTokenType: TokenExchange.accessTokenType, tokenType: "Bearer",
                        expiresAt: Timestamp(timeIntervalSince1970: 1_000_060), audience: ["asked"])))
    }

    @Test func notApplicableIsAcceptedOnlyForOtherTokenTypes() {
        let id = Self.parse(#"{"access_token":"h.p.s","issued_token_type":"urn:ietf:params:oauth:token-type:id_token","token_type":"N_A"}"#)
        guard case .token(let t) = id else { Issue.record("got \(id)"); return }
        #expect(t.tokenType == "N_A")
        let access = Self.parse(
            #"{"access_token":"x","issued_token_type":"urn:ietf:params:oauth:token-type:access_token","token_type":"N_A"}"#)
        guard case .error(.malformedResponse) = access else { Issue.record("got \(access)"); return }
    }

    @Test func refusalsAndBrokenAnswers() {
        #expect(
            Self.parse(#"{"error":"invalid_target","error_description":"Unknown audience"}"#, status: 400)
                == .error(.server(code: "invalid_target", description: "Unknown audience", status: 400)))
        for body in [
            #"{"access_token":"x","token_type":"Bearer"}"#,  // no issued_token_type
            #"{"issued_token_type":"urn:ietf:params:oauth:token-type:access_token"}"#,
            #"{"access_token":"x y","issued_token_type":"urn:ietf:params:oauth:token-type:access_token"}"#,
            #"{"access_token":"x","issued_token_type":"urn:ietf:params:oauth:token-type:access_token","token_type":"mac"}"#,
            #"{"access_token":"x","issued_token_type":"urn:ietf:params:oauth:token-type:access_token","expires_in":"soon"}"#,
            // Found by FuzzTokenExchangeAnswer: DEL passed the visible-ASCII check of the type.
            "{\"access_token\":\"x\",\"issued_token_type\":\"urn:a\u{7F}b\"}",
            "[]"
        ] {
            guard case .error(.malformedResponse) = Self.parse(body) else { Issue.record("accepted \(body)"); continue }
        }
        #expect(Self.parse("", status: 502) == .error(.unexpectedStatus(502)))
    }

    // MARK: The session

    @Test func aCachedExchangeIsReusedWithoutARequest() async throws {
        let store = MemoryTokenStore(stored())
        let t = exchangingServer()
        let s = session(store, t)
        let first = try await s.exchange(TokenExchange(audiences: ["api"]))
        let second = try await s.exchange(TokenExchange(audiences: ["api"]))
        #expect(first == second && first.audience == ["api"])
        #expect(t.sent.count == 1)
        #expect(t.sent[0].form["subject_token"] == "at-1")
        #expect(t.sent[0].form["subject_token_type"] == TokenExchange.accessTokenType)
        #expect(store.session?.exchanges.entries.count == 1)
        // --no-cache neither reads nor writes it.
        _ = try await s.exchange(TokenExchange(audiences: ["api"]), cache: false)
        #expect(t.sent.count == 2 && store.session?.exchanges.entries.count == 1)
        // Fresh for the margin only: 600 s left is not enough for 900 s.
        _ = try await s.exchange(TokenExchange(audiences: ["api"]), margin: .seconds(900))
        #expect(t.sent.count == 3)
    }

    @Test func aRefusedExchangedTokenIsReplacedInTheCache() async throws {
        let store = MemoryTokenStore(stored())
        let t = exchangingServer()
        let first = try await session(store, t).exchange(TokenExchange(audiences: ["api"]))
        // The resource refused `first`: the next exchange replaces the entry.
        let second = try await session(store, t).exchange(TokenExchange(audiences: ["api"]), replacing: first.token)
        #expect(second != first && t.sent.count == 2)
        #expect(store.session?.exchanges.entries.count == 1)
        // Another process (a new Session on the same store) reuses the replacement, not the refused one.
        let third = try await session(store, t).exchange(TokenExchange(audiences: ["api"]))
        #expect(third == second && t.sent.count == 2)
        // Refusing a token that is no longer the cached one reuses the cached one (another caller replaced it).
        let fourth = try await session(store, t).exchange(TokenExchange(audiences: ["api"]), replacing: first.token)
        #expect(fourth == second && t.sent.count == 2)
    }

    @Test func theSeventeenthAudienceEvictsTheLeastRecentlyUsed() async throws {
        let store = MemoryTokenStore(stored())
        let t = exchangingServer()
        let s = session(store, t)
        for n in 0..<16 { _ = try await s.exchange(TokenExchange(audiences: ["api-\(n)"])) }
        // A hit counts as a use: api-0 becomes the most recent, so api-1 is the one to go.
        _ = try await s.exchange(TokenExchange(audiences: ["api-0"]))
        #expect(t.sent.count == 16)
        _ = try await s.exchange(TokenExchange(audiences: ["api-16"]))
        let kept = store.session?.exchanges.entries.map { $0.key.audiences[0] } ?? []
        #expect(kept.count == 16)
        #expect(!kept.contains("api-1") && kept.contains("api-0") && kept.last == "api-16")
        _ = try await s.exchange(TokenExchange(audiences: ["api-0"]))
        #expect(t.sent.count == 17)
        _ = try await s.exchange(TokenExchange(audiences: ["api-1"]))
        #expect(t.sent.count == 18)
    }

    @Test func concurrentCallersShareOneExchange() async throws {
        let store = MemoryTokenStore(stored())
        let t = exchangingServer()
        let s = session(store, t)
        let tokens = try await withThrowingTaskGroup(of: String.self) { group in
            for _ in 0..<8 { group.addTask { try await s.exchange(TokenExchange(audiences: ["api"])).token } }
            var all: [String] = []
            for try await token in group { all.append(token) }
            return all
        }
        #expect(Set(tokens).count == 1)
        #expect(t.sent.count == 1)
    }

    @Test func otherSubjectsAndTypesAreSentAndNeverCached() async throws {
        let store = MemoryTokenStore(stored())
        let t = ScriptedTransport(clock: clock) { _, _ in
            Reply.json(
                200, #"{"access_token":"rt-x","issued_token_type":"urn:ietf:params:oauth:token-type:refresh_token","token_type":"N_A"}"#)
        }
        let s = session(store, t)
        let refreshed = try await s.exchange(TokenExchange(subject: .refreshToken, requestedTokenType: "refresh_token"))
        #expect(refreshed.tokenType == "N_A")
        _ = try await s.exchange(TokenExchange(subject: .idToken, requestedTokenType: "refresh_token"))
        _ = try await s.exchange(
            TokenExchange(
                subject: .given(token: "k8s-jwt", type: "jwt"), actor: (token: "actor", type: "jwt"), requestedTokenType: "refresh_token"))
        #expect(t.sent.map { $0.form["subject_token"] } == ["rt-1", "h.p.s", "k8s-jwt"])
        #expect(
            t.sent.map { $0.form["subject_token_type"] } == [
                "urn:ietf:params:oauth:token-type:refresh_token", "urn:ietf:params:oauth:token-type:id_token",
                "urn:ietf:params:oauth:token-type:jwt"
            ])
        #expect(t.sent[2].form["actor_token"] == "actor" && t.sent[2].form["actor_token_type"] == "urn:ietf:params:oauth:token-type:jwt")
        #expect(store.saves.isEmpty)
        // The sign-in's own resource indicators are not added to an exchange.
        #expect(t.sent.allSatisfy { $0.form["resource"] == nil })
    }

    @Test func aRefusalIsTheServersErrorAndNothingIsCached() async throws {
        let store = MemoryTokenStore(stored())
        let t = ScriptedTransport(clock: clock) { _, _ in
            Reply.json(400, #"{"error":"invalid_target","error_description":"Unknown audience"}"#)
        }
        do {
            _ = try await session(store, t).exchange(TokenExchange(audiences: ["nope"]))
            Issue.record("accepted")
        } catch {
            guard case .oauth(.server("invalid_target", "Unknown audience", 400), .token) = error else {
                Issue.record("got \(error)"); return
            }
            #expect(error.category == .protocolViolation)
        }
        #expect(store.session?.exchanges.isEmpty == true)
        await expectError(category: .signInRequired) { try await session(MemoryTokenStore(), t).exchange(TokenExchange()) }
        var noRefresh = stored()
        noRefresh.token.refreshToken = nil
        await expectError(category: .configuration) {
            try await session(MemoryTokenStore(noRefresh), t).exchange(TokenExchange(subject: .refreshToken))
        }
    }

    @Test func aDPoPBoundSessionProvesItsExchange() async throws {
        let store = MemoryTokenStore(stored(dpop: true))
        let t = ScriptedTransport(clock: clock) { _, _ in
            Reply.json(
                200,
                #"{"access_token":"x-dpop","issued_token_type":"urn:ietf:params:oauth:token-type:access_token","token_type":"DPoP","expires_in":300}"#
            )
        }
        let token = try await session(store, t).exchange(TokenExchange(audiences: ["api"]))
        #expect(token.tokenType == "DPoP")
        let proof = try DPoPProofTests.verified(try #require(t.sent[0].header("DPoP")))
        #expect(proof.claims["htm"] == .string("POST") && proof.claims["htu"] == .string("https://idp.example/token"))
        #expect(proof.claims["ath"] == nil)
        // A Bearer session that gets a DPoP answer is a protocol violation.
        await expectError(category: .protocolViolation) {
            try await session(MemoryTokenStore(stored()), t).exchange(TokenExchange(audiences: ["api"]))
        }
    }
}
