import FoundationEssentials
import LatchkeyHTTP
import LatchkeyJOSE
import LatchkeyTesting
import Synchronization
import Testing

@testable import Latchkey

@Suite struct SessionTests {
    let clock = VirtualClock()

    func stored(expiresIn: Double, refreshToken: String? = "rt-1", idToken: String? = "id-old", claims: String? = nil) -> StoredSession {
        let now = clock.now()
        return StoredSession(
            profile: "default", issuer: TestIssuer.issuer, clientID: TestIssuer.clientID,
            token: Token(
                accessToken: "at-1", refreshToken: refreshToken, expiresAt: now.addingTimeInterval(expiresIn),
                scope: "openid offline_access", idToken: idToken),
            subject: "user-1", idTokenClaimsJSON: claims ?? #"{"iss":"https://idp.example","sub":"user-1","aud":"device-client"}"#,
            metadata: testMetadata(), createdAt: now, updatedAt: now)
    }

    func session(_ store: any TokenStore, _ transport: ScriptedTransport, keySet: (any KeySet)? = nil) -> Session {
        Session(
            configuration: testConfiguration(), store: store, transport: transport, time: clock, random: CountingRandom(),
            keySet: keySet)
    }

    /// A token endpoint that rotates: each refresh returns at-N / rt-N, after a real (short) delay so
    /// concurrent callers overlap.
    func rotatingServer(extra: String = "") -> ScriptedTransport {
        ScriptedTransport(clock: clock) { r, index in
            guard r.url.path == "/token" else { return Reply.empty(404) }
            try await Task.sleep(nanoseconds: 20_000_000)
            let n = index + 2
            return Reply.json(
                200, #"{"access_token":"at-\#(n)","token_type":"bearer","expires_in":3600,"refresh_token":"rt-\#(n)"\#(extra)}"#)
        }
    }

    @Test func validCachedTokenNeedsNoNetworkAndNoLock() async throws {
        let store = MemoryTokenStore(stored(expiresIn: 3600))
        let t = rotatingServer()
        let token = try await session(store, t).validToken()
        #expect(token.accessToken == "at-1")
        #expect(t.sent.isEmpty)
        #expect(store.locks == 0)
        #expect(store.saves.isEmpty)
    }

    @Test func notSignedInIsExit3() async {
        await expectError(category: .signInRequired, code: "not_signed_in") {
            try await session(MemoryTokenStore(), rotatingServer()).validToken()
        }
    }

    @Test func storageFailureIsExit9() async {
        await expectError(category: .storage) { try await session(FailingTokenStore(), rotatingServer()).validToken() }
    }

    @Test func expiringTokenIsRefreshedAndRotationSavedBeforeReturn() async throws {
        let store = MemoryTokenStore(stored(expiresIn: 30))  // inside the 60 s margin
        let t = rotatingServer()
        let token = try await session(store, t).validToken(minTTL: 60)
        #expect(token.accessToken == "at-2")
        #expect(token.tokenType == "Bearer")
        #expect(store.saves.count == 1)
        #expect(store.session?.token.refreshToken == "rt-2")
        #expect(store.session?.token.accessToken == "at-2")
        let form = t.sent[0].form
        #expect(form["grant_type"] == "refresh_token")
        #expect(form["refresh_token"] == "rt-1")
        #expect(form["client_id"] == TestIssuer.clientID)
        // The last verified ID token is kept when the refresh brings none (Glewlwyd, kubelogin #536).
        #expect(store.session?.token.idToken == "id-old")
        #expect(store.session?.subject == "user-1")
    }

    @Test func refreshWithoutRefreshTokenKeepsTheOldOne() async throws {
        let store = MemoryTokenStore(stored(expiresIn: 0))
        let t = ScriptedTransport(clock: clock) { _, _ in Reply.json(200, #"{"access_token":"at-2","token_type":"Bearer","expires_in":60}"#)
        }
        _ = try await session(store, t).validToken()
        #expect(store.session?.token.refreshToken == "rt-1")
        #expect(store.session?.token.accessToken == "at-2")
    }

    @Test func concurrentCallersCauseExactlyOneRefresh() async throws {
        let store = MemoryTokenStore(stored(expiresIn: 10))
        let t = rotatingServer()
        let s = session(store, t)
        let tokens = try await withThrowingTaskGroup(of: String.self) { group in
            for _ in 0..<32 { group.addTask { try await s.validToken().accessToken } }
            return try await group.reduce(into: [String]()) { $0.append($1) }
        }
        #expect(t.sent(to: "/token").count == 1)
        #expect(Set(tokens) == ["at-2"])
        #expect(store.saves.count == 1)
    }

    @Test func twoSessionsOnOneStoreRefreshOnce() async throws {
        // Two processes: separate Session objects sharing one lockable store.
        let store = MemoryTokenStore(stored(expiresIn: 10))
        let t = rotatingServer()
        let a = session(store, t)
        let b = session(store, t)
        async let x = a.validToken()
        async let y = b.validToken()
        let (tx, ty) = try await (x, y)
        #expect(t.sent(to: "/token").count == 1)
        #expect(tx.accessToken == "at-2" && ty.accessToken == "at-2")
    }

    @Test func forceRefreshRefreshesAValidToken() async throws {
        let store = MemoryTokenStore(stored(expiresIn: 3600))
        let t = rotatingServer()
        let token = try await session(store, t).validToken(forceRefresh: true)
        #expect(token.accessToken == "at-2")
        #expect(t.sent.count == 1)
    }

    @Test func unreachableServerWithAStillValidTokenReturnsIt() async throws {
        let store = MemoryTokenStore(stored(expiresIn: 30))  // inside the margin, not yet expired
        let t = ScriptedTransport(clock: clock) { _, _ in throw HTTPError.connectFailed(host: "idp.example", port: 443, reason: "refused") }
        let token = try await session(store, t).validToken(minTTL: 60)
        #expect(token.accessToken == "at-1")
        #expect(t.sent.count == 1)
        // Once expired, the failure is reported.
        let expired = MemoryTokenStore(stored(expiresIn: -1))
        await expectError(category: .network) { try await session(expired, t).validToken() }
        // A forced refresh reports it too.
        await expectError(category: .network) { try await session(store, t).validToken(forceRefresh: true) }
    }

    @Test func glewlwydEmpty400OnRefreshClearsTokensAndAsksForSignIn() async throws {
        let store = MemoryTokenStore(stored(expiresIn: 0))
        let t = ScriptedTransport(clock: clock) { _, _ in Reply.empty(400) }
        await expectError(category: .signInRequired, code: "reauthentication_required") { try await session(store, t).validToken() }
        #expect(store.session == nil)
        #expect(store.deletes == 1)
        #expect(t.sent.count == 1)
    }

    @Test func noRefreshTokenMeansSignInAgain() async {
        let store = MemoryTokenStore(stored(expiresIn: 0, refreshToken: nil))
        let t = rotatingServer()
        await expectError(category: .signInRequired) { try await session(store, t).validToken() }
        #expect(t.sent.isEmpty)
    }

    @Test func refreshedIDTokenIsVerifiedAndStored() async throws {
        let idp = try TestIssuer()
        let newID = try idp.sign(TestIssuer.claims(now: clock.now(), extra: [("name", "Ada")]))
        let store = MemoryTokenStore(stored(expiresIn: 0))
        let t = rotatingServer(extra: #","id_token":"\#(newID)""#)
        _ = try await session(store, t, keySet: try idp.keySet()).validToken()
        #expect(store.session?.token.idToken == newID)
        #expect(store.session?.idTokenClaimsJSON?.contains("Ada") == true)
    }

    /// A key set that notes what the store holds whenever it is asked to judge an ID token.
    final class ObservingKeySet: KeySet {
        let inner: StaticKeySet
        let store: MemoryTokenStore
        let clock: VirtualClock?
        let seen = Mutex<[(refresh: String?, access: String?, fresh: Bool?)]>([])
        init(_ inner: StaticKeySet, store: MemoryTokenStore, clock: VirtualClock? = nil) {
            self.inner = inner
            self.store = store
            self.clock = clock
        }
        func verify(_ jws: JWS, allowed: Set<JWSAlgorithm>) async throws(LatchkeyError) -> JWK {
            let held = store.session
            // What another process reading the file now would decide (the standard margin).
            let fresh = clock.flatMap { clock in held.map { $0.isFresh(at: clock.now(), margin: .standard) } }
            seen.withLock { $0.append((held?.token.refreshToken, held?.token.accessToken, fresh)) }
            return try await inner.verify(jws, allowed: allowed)
        }
    }

    /// Issue 36, found by the 30-minute soaks: judging a refreshed ID token can take a round trip
    /// (a JWKS fetch for a new key), and a process killed then lost the rotated refresh token. It
    /// is saved first now, with the previous access token (the answer is not trusted yet).
    @Test func theRotatedRefreshTokenIsSavedBeforeTheIDTokenIsJudged() async throws {
        let idp = try TestIssuer()
        let newID = try idp.sign(TestIssuer.claims(now: clock.now(), extra: [("name", "Ada")]))
        let store = MemoryTokenStore(stored(expiresIn: 0))
        let t = rotatingServer(extra: #","id_token":"\#(newID)""#)
        let keys = ObservingKeySet(try idp.keySet(), store: store)
        let token = try await session(store, t, keySet: keys).validToken()
        #expect(token.accessToken == "at-2")
        let seen = keys.seen.withLock { $0 }
        #expect(seen.map(\.refresh) == ["rt-2"], "the store held the spent token while the ID token was judged")
        #expect(seen.map(\.access) == ["at-1"], "and not yet the unjudged answer's access token")
        #expect(store.session?.token.accessToken == "at-2" && store.session?.token.idToken == newID)
    }

    /// The interim save keeps the previous token as it was obtained: with its `updatedAt`, so its
    /// lifetime is measured as before. Stamped with the refresh's time instead, a 70 s token with
    /// 58 s left looked like a 58 s token (standard margin: half its life, 29 s), so it looked
    /// fresh, and processes that read the file while the ID token was judged handed out the old
    /// token instead of waiting for the new one (the acceptance store suite's contention-32 found it).
    @Test func theInterimSessionIsNotFreshWhenTheRefreshWasDue() async throws {
        let idp = try TestIssuer()
        let newID = try idp.sign(TestIssuer.claims(now: clock.now(), extra: [("name", "Ada")]))
        var due = stored(expiresIn: 58)
        due.updatedAt = clock.now().addingTimeInterval(-12)
        #expect(!due.isFresh(at: clock.now(), margin: .standard))
        let store = MemoryTokenStore(due)
        let t = rotatingServer(extra: #","id_token":"\#(newID)""#)
        let keys = ObservingKeySet(try idp.keySet(), store: store, clock: clock)
        let token = try await session(store, t, keySet: keys).validToken(margin: .standard)
        #expect(token.accessToken == "at-2")
        let seen = keys.seen.withLock { $0 }
        #expect(seen.map(\.refresh) == ["rt-2"])
        #expect(seen.map(\.fresh) == [false], "the interim session looked fresh: other processes would serve at-1")
    }

    /// Issue 12, item 3: the refused response's access token is never stored or served; only the
    /// rotated refresh token is kept (the old one is spent).
    @Test func refreshedIDTokenForAnotherSubjectIsRefusedAndItsAccessTokenNeverServed() async throws {
        let idp = try TestIssuer()
        let newID = try idp.sign(TestIssuer.claims(now: clock.now(), extra: [("sub", "intruder")]))
        let store = MemoryTokenStore(stored(expiresIn: 0))
        let t = rotatingServer(extra: #","id_token":"\#(newID)""#)
        let s = session(store, t, keySet: try idp.keySet())
        await expectError(category: .verification) { try await s.validToken() }
        #expect(store.session?.token.refreshToken == "rt-2")
        #expect(store.session?.token.accessToken == "at-1")
        #expect(store.session?.token.expiresAt == clock.now())
        #expect(store.session?.token.idToken == "id-old")
        #expect(store.session?.subject == "user-1")
        // The previous token has expired: no token is handed out, the next refresh must succeed.
        await expectError(category: .verification) { try await s.validToken() }
        #expect(t.sent.map { $0.form["refresh_token"] } == ["rt-1", "rt-2"])
    }

    @Test func refusedRefreshKeepsThePreviousAccessTokenWhileItIsValid() async throws {
        let idp = try TestIssuer()
        let newID = try idp.sign(TestIssuer.claims(now: clock.now(), extra: [("sub", "intruder")]))
        let store = MemoryTokenStore(stored(expiresIn: 600))
        let t = rotatingServer(extra: #","id_token":"\#(newID)""#)
        let s = session(store, t, keySet: try idp.keySet())
        await expectError(category: .verification) { try await s.validToken(forceRefresh: true) }
        let token = try await s.validToken()
        #expect(token.accessToken == "at-1")
        #expect(t.sent.count == 1)
        #expect(store.session?.token.refreshToken == "rt-2")
    }

    /// Issue 12, item 4: logout runs under the store lock, so a refresh holding it finishes first
    /// and the refresh token revoked is the rotated one it saved.
    @Test func logoutWaitsForARefreshHoldingTheLockAndRevokesTheRotatedToken() async throws {
        let store = MemoryTokenStore(stored(expiresIn: 0))
        let t = ScriptedTransport(clock: clock) { r, index in
            if r.url.path == "/token" {
                try await Task.sleep(nanoseconds: 300_000_000)
                return Reply.json(200, #"{"access_token":"at-2","token_type":"Bearer","expires_in":3600,"refresh_token":"rt-2"}"#)
            }
            return Reply.empty(200)
        }
        let refreshing = session(store, t)
        let loggingOut = session(store, t)  // another process
        let refresh = Task { try await refreshing.validToken() }
        while t.sent(to: "/token").isEmpty { try await Task.sleep(nanoseconds: 5_000_000) }
        let warnings = try await loggingOut.logout()
        _ = try await refresh.value
        #expect(warnings.isEmpty)
        #expect(store.session == nil, "signed in again after logout")
        #expect(t.sent(to: "/revoke").map { $0.form["token"] } == ["rt-2", "at-2"])
        #expect(store.locks == 2)
    }

    // MARK: Logout

    func revocationServer(status: @escaping @Sendable (ScriptedTransport.SentRequest) -> Int) -> ScriptedTransport {
        ScriptedTransport(clock: clock) { r, _ in
            let sent = ScriptedTransport.SentRequest(request: r, at: Timestamp.now())
            let code = status(sent)
            return code == 200 ? Reply.empty(200) : Reply.json(code, #"{"error":"invalid_client"}"#)
        }
    }

    @Test func logoutRevokesRefreshThenAccessAndDeletes() async throws {
        let store = MemoryTokenStore(stored(expiresIn: 3600))
        let t = revocationServer { _ in 200 }
        let warnings = try await session(store, t).logout()
        #expect(warnings.isEmpty)
        #expect(t.sent.map { $0.form["token_type_hint"] } == ["refresh_token", "access_token"])
        #expect(t.sent.map { $0.form["token"] } == ["rt-1", "at-1"])
        #expect(t.sent.allSatisfy { $0.path == "/revoke" && $0.form["client_id"] == TestIssuer.clientID })
        #expect(store.session == nil)
    }

    @Test func failedRevocationIsAWarningAndLocalStateIsStillDeleted() async throws {
        let store = MemoryTokenStore(stored(expiresIn: 3600))
        let t = ScriptedTransport(clock: clock) { _, _ in throw HTTPError.connectFailed(host: "idp.example", port: 443, reason: "refused") }
        let warnings = try await session(store, t).logout()
        #expect(warnings.count == 2)
        #expect(warnings[0].description.contains("refresh token"))
        guard case .failed(.refreshToken, .network) = warnings[0] else { Issue.record("\(warnings[0])"); return }
        #expect(store.session == nil)
    }

    @Test func glewlwydRevocationRetriesWithBearerAfter401() async throws {
        let store = MemoryTokenStore(stored(expiresIn: 3600))
        let t = revocationServer { $0.header("Authorization") == "Bearer at-1" ? 200 : 401 }
        let warnings = try await session(store, t).logout()
        #expect(warnings.isEmpty)
        #expect(t.sent.count == 4)
        #expect(t.sent.map { $0.header("Authorization") } == [nil, "Bearer at-1", nil, "Bearer at-1"])
        #expect(t.sent.map { $0.form["token"] } == ["rt-1", "rt-1", "at-1", "at-1"])
    }

    @Test func logoutWithoutRevocationSendsNothing() async throws {
        let store = MemoryTokenStore(stored(expiresIn: 3600))
        let t = revocationServer { _ in 200 }
        _ = try await session(store, t).logout(revoke: false)
        #expect(t.sent.isEmpty)
        #expect(store.session == nil)
    }

    @Test func logoutWithoutRevocationEndpointWarns() async throws {
        var s = stored(expiresIn: 3600)
        s.metadata.revocationEndpoint = nil
        let store = MemoryTokenStore(s)
        let warnings = try await session(store, revocationServer { _ in 200 }).logout()
        #expect(warnings.count == 2)
        #expect(store.session == nil)
    }

    // MARK: Sign-in

    /// A whole provider: discovery, device endpoint, token endpoint issuing an ID token, JWKS.
    func provider(_ idp: TestIssuer, idTokenClaims: @escaping @Sendable (Timestamp) -> JSONObject) -> ScriptedTransport {
        let clock = self.clock
        return ScriptedTransport(clock: clock) { r, _ in
            switch r.url.path {
            case "/.well-known/openid-configuration":
                return Reply.json(
                    200,
                    #"{"issuer":"https://idp.example","token_endpoint":"https://idp.example/token","device_authorization_endpoint":"https://idp.example/device","authorization_endpoint":"https://idp.example/authorize","jwks_uri":"https://idp.example/jwks","id_token_signing_alg_values_supported":["ES256"]}"#
                )
            case "/device":
                return DeviceFlowTests.standardDevice
            case "/jwks":
                return Reply.json(200, TestIssuer.jwks([idp]))
            case "/token":
                let id = try idp.sign(idTokenClaims(clock.now()))
                let at = "access-xyz"
                _ = at
                return Reply.json(
                    200,
                    #"{"access_token":"access-xyz","token_type":"Bearer","expires_in":3600,"refresh_token":"rt","scope":"openid offline_access","id_token":"\#(id)"}"#
                )
            default:
                return Reply.empty(404)
            }
        }
    }

    @Test func deviceSignInVerifiesAndSaves() async throws {
        let idp = try TestIssuer()
        let t = provider(idp) {
            TestIssuer.claims(now: $0, extra: [("at_hash", .string(AccessTokenHash.compute(accessToken: "access-xyz", algorithm: .es256)))])
        }
        let store = MemoryTokenStore()
        let events = EventLog()
        let saved = try await session(store, t).signIn(flow: .device, events: events.record)
        #expect(saved.subject == "user-1")
        #expect(saved.token.accessToken == "access-xyz")
        #expect(saved.metadata.tokenEndpoint == "https://idp.example/token")
        #expect(store.session == saved)
        #expect(t.sent(to: "/jwks").count == 1)
        guard case .authorized(let issuer, let subject, _, _, let verified, _) = events.all.last else {
            Issue.record("no authorized event"); return
        }
        #expect(issuer == TestIssuer.issuer && subject == "user-1" && verified)
    }

    @Test func deviceSignInWithForeignIDTokenSavesNothing() async throws {
        let idp = try TestIssuer()
        let t = provider(idp) { TestIssuer.claims(now: $0, extra: [("aud", "another-client")]) }
        let store = MemoryTokenStore()
        await expectError(category: .verification) { try await session(store, t).signIn(flow: .device) }
        #expect(store.session == nil)
    }

    @Test func pasteSignInChecksStateAndNonce() async throws {
        let idp = try TestIssuer()
        let events = EventLog()
        let nonceBox = Box()
        let t = provider(idp) { TestIssuer.claims(now: $0, nonce: nonceBox.value) }
        let store = MemoryTokenStore()
        let saved = try await session(store, t).signIn(
            flow: .paste,
            pasteReader: {
                // The user approves in a browser and pastes the URL it was sent to.
                let url = try #require(events.authorizationURL)
                let q = Dictionary(FormURLEncoding.decode(url.query ?? ""), uniquingKeysWith: { a, _ in a })
                nonceBox.value = q["nonce"]
                return "http://127.0.0.1:53682/callback?code=the-code&state=\(q["state"]!)&iss=https%3A%2F%2Fidp.example"
            }, events: events.record)
        #expect(saved.subject == "user-1")
        let exchange = try #require(t.sent(to: "/token").first)
        #expect(exchange.form["code"] == "the-code")
        #expect(exchange.form["grant_type"] == "authorization_code")
        #expect(exchange.form["redirect_uri"] == "http://127.0.0.1:53682/callback")
        let q = Dictionary(FormURLEncoding.decode(events.authorizationURL?.query ?? ""), uniquingKeysWith: { a, _ in a })
        #expect(try PKCE(verifier: exchange.form["code_verifier"] ?? "").challenge == q["code_challenge"])
    }

    @Test func browserSignInThroughTheLoopbackListener() async throws {
        let idp = try TestIssuer()
        let events = EventLog()
        let nonceBox = Box()
        let t = provider(idp) { TestIssuer.claims(now: $0, nonce: nonceBox.value) }
        let store = MemoryTokenStore()
        // The "browser": when the URL is shown, follow the redirect to the loopback listener.
        let browser: LoginEventHandler = { event in
            events.record(event)
            guard case .authorizationURL(let url) = event else { return }
            let q = Dictionary(FormURLEncoding.decode(url.query ?? ""), uniquingKeysWith: { a, _ in a })
            nonceBox.value = q["nonce"]
            let target = HTTPURL(string: q["redirect_uri"]! + "?code=c1&state=" + q["state"]!)!
            Task { _ = try? await HTTPClient(configuration: .init()).send(HTTPRequest(url: target, timeout: 5)) }
        }
        let saved = try await session(store, t).signIn(flow: .browser, timeout: 10, events: browser)
        #expect(saved.subject == "user-1")
        let redirect = try #require(t.sent(to: "/token").first?.form["redirect_uri"])
        #expect(redirect.hasPrefix("http://127.0.0.1:"))
        #expect(redirect.hasSuffix("/callback"))
    }
}

final class Box: @unchecked Sendable {
    private let lock = NSLockish()
    private var v: String?
    var value: String? {
        get { lock.run { v } }
        set { lock.run { v = newValue } }
    }
}
