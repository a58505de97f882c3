import FoundationEssentials
import LatchkeyHTTP
import LatchkeyJOSE
import LatchkeyTesting
import Testing

@testable import Latchkey

@Suite struct ClockSkewAndQuirkTests {
    /// A provider whose token endpoint signs ID tokens with `claims(serverNow)` and sends `Timestamp: serverNow`.
    func provider(
        _ idp: TestIssuer, clock: VirtualClock, serverOffset: Double,
        claims: @escaping @Sendable (Timestamp) -> JSONObject = { TestIssuer.claims(now: $0) }
    ) -> ScriptedTransport {
        ScriptedTransport(clock: clock) { r, _ in
            let serverNow = clock.now().addingTimeInterval(serverOffset)
            switch r.url.path {
            case "/device": return DeviceFlowTests.standardDevice
            case "/token":
                let id = try idp.sign(claims(serverNow))
                return Reply.json(
                    200, #"{"access_token":"at","token_type":"Bearer","expires_in":3600,"refresh_token":"rt","id_token":"\#(id)"}"#,
                    headers: [("Date", HTTPDate.format(serverNow))])
            default: return Reply.empty(404)
            }
        }
    }

    func signIn(_ t: ScriptedTransport, _ idp: TestIssuer, clock: VirtualClock, store: MemoryTokenStore = MemoryTokenStore())
        async throws -> (Session, StoredSession)
    {
        let session = Session(
            configuration: testConfiguration(), store: store, transport: t, time: clock,
            random: CountingRandom(), keySet: try idp.keySet())
        return (session, try await session.signIn(flow: .device, metadata: testMetadata()))
    }

    /// An appliance booted with a clock four minutes slow: the ID token's `iat` looks like the future
    /// (beyond the 60 s leeway) unless time checks follow the provider's `Date`, which they do.
    @Test func signInWithASlowLocalClockUsesTheServerDate() async throws {
        let clock = VirtualClock()
        let idp = try TestIssuer()
        let (session, saved) = try await signIn(provider(idp, clock: clock, serverOffset: 240), idp, clock: clock)
        #expect(saved.subject == "user-1")
        let skew = try #require(await session.observedClockSkew)
        #expect(abs(skew - 240) < 10)
        let reported = try #require(await session.significantClockSkew)
        #expect(abs(reported - 240) < 10, "the skew beyond the leeway is reported, in seconds")
        // Expiry of the access token counts from local receipt, so it stays usable on the local clock.
        #expect(saved.token.isValid(at: clock.now(), minTTL: 60))
    }

    /// cli.md "Clocks": the shift follows the `Date` up to 24 h either way, no further.
    @Test func theShiftFollowsTheProviderUpToADay() throws {
        let c = VirtualClock()
        #expect(ClockSkew.timeSource(c, skew: 7200, leeway: 60).now() == c.now().addingTimeInterval(7200))
        #expect(ClockSkew.timeSource(c, skew: -86_400, leeway: 60).now() == c.now().addingTimeInterval(-86_400))
        #expect(ClockSkew.timeSource(c, skew: 90_000, leeway: 60).now() == c.now().addingTimeInterval(86_400))
        #expect(throws: Never.self) { try ClockSkew.check(86_400) }
        #expect(throws: Never.self) { try ClockSkew.check(nil) }
        #expect { try ClockSkew.check(-90_000) } throws: { error in
            guard case .verification(.clockOffsetTooLarge(-90_000)) = error as? LatchkeyError else { return false }
            return (error as? LatchkeyError)?.message == "the local clock is 90000 s ahead of the provider's, more than 24 h: "
                + "ID token times cannot be judged; set the clock (NTP) and try again"
                && (error as? LatchkeyError)?.code == "clock_skew"
        }
        #expect(ClockSkew.isSignificant(-86_400, leeway: 60) && ClockSkew.seconds(-86_400) == -86_400)
    }

    /// Only a `Date` that came over TLS, or from loopback, is the provider's.
    @Test func onlyAnAuthenticatedDateCounts() throws {
        let date = [("Date", "Sun, 06 Nov 1994 08:49:37 GMT")]
        let https = HTTPResponse(status: 200, headers: date, url: try HTTPURL.parse("https://idp.example/token"))
        let loopback = HTTPResponse(status: 200, headers: date, url: try HTTPURL.parse("http://127.0.0.1:8080/token"))
        #expect(ClockSkew.authenticatedServerDate(https) != nil)
        #expect(ClockSkew.authenticatedServerDate(loopback) != nil)
    }

    /// A provider a day behind, signing with its own clock: the ID token it issued "now" expired
    /// hours ago on the local clock, and is accepted by the provider's.
    @Test func aProviderADayBehindIsJudgedByItsOwnClock() async throws {
        let clock = VirtualClock()
        let idp = try TestIssuer()
        let t = provider(idp, clock: clock, serverOffset: -86_000)
        let (session, saved) = try await signIn(t, idp, clock: clock)
        #expect(saved.subject == "user-1")
        #expect((await session.significantClockSkew ?? 0) < 0, "the local clock is ahead: a negative skew")
    }

    @Test func aServerDateMoreThanADayBehindIsRefusedNamingTheOffset() async throws {
        let clock = VirtualClock()
        let idp = try TestIssuer()
        let store = MemoryTokenStore()
        let t = provider(idp, clock: clock, serverOffset: -90_000)
        await expectError(category: .verification, code: "clock_skew") { try await signIn(t, idp, clock: clock, store: store) }
        #expect(store.session == nil)
    }

    @Test func aClockTwoHoursSlowIsAcceptedAndTheSkewReported() async throws {
        let clock = VirtualClock()
        let idp = try TestIssuer()
        let store = MemoryTokenStore()
        let session = Session(
            configuration: testConfiguration(), store: store, transport: provider(idp, clock: clock, serverOffset: 7200),
            time: clock, random: CountingRandom(), keySet: try idp.keySet())
        let events = EventLog()
        _ = try await session.signIn(flow: .device, metadata: testMetadata(), events: events.record)
        let skew = try #require(await session.observedClockSkew)
        #expect(abs(skew - 7200) < 10)
        #expect(abs((await session.significantClockSkew ?? 0) - 7200) < 10)
        #expect(
            events.all.contains {
                if case .clockSkew(let s) = $0 { return abs(s - 7200) < 10 }; return false
            })
        #expect(store.session != nil)
    }

    @Test func aClockADayAndMoreSlowIsRefusedAfterTheWarningEvent() async throws {
        let clock = VirtualClock()
        let idp = try TestIssuer()
        let store = MemoryTokenStore()
        let session = Session(
            configuration: testConfiguration(), store: store, transport: provider(idp, clock: clock, serverOffset: 90_000),
            time: clock, random: CountingRandom(), keySet: try idp.keySet())
        let events = EventLog()
        await expectError(category: .verification, code: "clock_skew") {
            try await session.signIn(flow: .device, metadata: testMetadata(), events: events.record)
        }
        #expect(
            events.all.contains {
                if case .clockSkew = $0 { return true }; return false
            })
        #expect(store.session == nil)
    }

    @Test func refreshWithADateMoreThanADayBehindRefusesTheIDTokenAndKeepsTheRotatedRefreshToken() async throws {
        let clock = VirtualClock()
        let idp = try TestIssuer()
        let now = clock.now()
        let t = provider(idp, clock: clock, serverOffset: -90_000)
        let stored = StoredSession(
            profile: "default", issuer: TestIssuer.issuer, clientID: TestIssuer.clientID,
            token: Token(accessToken: "at-1", refreshToken: "rt-1", expiresAt: now, idToken: "id-old"),
            subject: "user-1", idTokenClaimsJSON: #"{"iss":"https://idp.example","sub":"user-1","aud":"device-client"}"#,
            metadata: testMetadata(), createdAt: now, updatedAt: now)
        let store = MemoryTokenStore(stored)
        let session = Session(
            configuration: testConfiguration(), store: store, transport: t, time: clock,
            random: CountingRandom(), keySet: try idp.keySet())
        await expectError(category: .verification, code: "clock_skew") { try await session.validToken() }
        #expect(store.session?.token.refreshToken == "rt")
        #expect(store.session?.token.accessToken == "at-1")
    }

    @Test func smallSkewIsIgnored() {
        #expect(!ClockSkew.isSignificant(2, leeway: 60))
        let c = VirtualClock()
        #expect(ClockSkew.timeSource(c, skew: 30, leeway: 60).now() == c.now())
        #expect(ClockSkew.timeSource(c, skew: -300, leeway: 60).now() == c.now().addingTimeInterval(-300))
        #expect(ClockSkew.timeSource(c, skew: 60, leeway: 60).now() == c.now())
    }

    @Test func entraCommonIssuerTemplateOnlyWithTheQuirk() throws {
        let doc = try JSONParser().parseObject(
            Array(
                #"{"issuer":"https://login.microsoftonline.com/{tenantid}/v2.0","token_endpoint":"https://login.microsoftonline.com/common/oauth2/v2.0/token"}"#
                    .utf8))
        let configured = "https://login.microsoftonline.com/common/v2.0"
        #expect(throws: LatchkeyError.self) { try ProviderDiscovery.parse(doc, expectedIssuer: configured) }
        let m = try ProviderDiscovery.parse(doc, expectedIssuer: configured, quirks: ProviderQuirks(entraTenantIssuer: true))
        #expect(m.issuer == "https://login.microsoftonline.com/{tenantid}/v2.0")
        // The template is not a wildcard for arbitrary hosts or tenants.
        #expect(throws: LatchkeyError.self) {
            try ProviderDiscovery.parse(
                doc, expectedIssuer: "https://evil.example/common/v2.0", quirks: ProviderQuirks(entraTenantIssuer: true))
        }
    }

    @Test func configurationRoundTripsThroughJSONWithDefaults() throws {
        var c = testConfiguration(authMethod: .clientSecretPost, pkce: .always)
        c.endpoints.deviceAuthorization = "https://idp.example/dev"
        c.quirks.entraTenantIssuer = true
        let text = JSONValue.object(c.json).jsonText
        #expect(try ClientConfiguration(json: try JSONParser().parseObject(Array(text.utf8))) == c)
        let minimal = try ClientConfiguration(json: try JSONParser().parseObject(Array(#"{"issuer":"https://i","client_id":"c"}"#.utf8)))
        #expect(minimal.scopes == ["openid", "offline_access"])
        #expect(minimal.authMethod == ClientAuthMethod.none)
        #expect(minimal.pkce == .auto)
        #expect(minimal.leeway == 60)
    }
}
