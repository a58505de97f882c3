import FoundationEssentials
import Testing
import LatchkeyHTTP
import LatchkeyJOSE
@testable import Latchkey
import LatchkeyTesting

@Suite struct ClockSkewAndQuirkTests {
    /// A provider whose token endpoint signs ID tokens with `claims(serverNow)` and sends `Timestamp: serverNow`.
    func provider(_ idp: TestIssuer, clock: VirtualClock, serverOffset: Double,
                  claims: @escaping @Sendable (Timestamp) -> JSONObject = { TestIssuer.claims(now: $0) }) -> ScriptedTransport {
        ScriptedTransport(clock: clock) { r, _ in
            let serverNow = clock.now().addingTimeInterval(serverOffset)
            switch r.url.path {
            case "/device": return DeviceFlowTests.standardDevice
            case "/token":
                let id = try idp.sign(claims(serverNow))
                return Reply.json(200, #"{"access_token":"at","token_type":"Bearer","expires_in":3600,"refresh_token":"rt","id_token":"\#(id)"}"#,
                                  headers: [("Date", HTTPDate.format(serverNow))])
            default: return Reply.empty(404)
            }
        }
    }

    func signIn(_ t: ScriptedTransport, _ idp: TestIssuer, clock: VirtualClock, store: MemoryTokenStore = MemoryTokenStore())
        async throws -> (Session, StoredSession) {
        let session = Session(configuration: testConfiguration(), store: store, transport: t, time: clock,
                              random: CountingRandom(), keySet: try idp.keySet())
        return (session, try await session.signIn(flow: .device, metadata: testMetadata()))
    }

    /// An appliance booted with a clock four minutes slow: the ID token's `iat` looks like the future
    /// (beyond the 60 s leeway) unless time checks follow the server's `Timestamp`, which they do up to the cap.
    @Test func signInWithASlowLocalClockUsesTheServerDate() async throws {
        let clock = VirtualClock()
        let idp = try TestIssuer()
        let (session, saved) = try await signIn(provider(idp, clock: clock, serverOffset: 240), idp, clock: clock)
        #expect(saved.subject == "user-1")
        let skew = try #require(await session.observedClockSkew)
        #expect(abs(skew - 240) < 10)
        #expect(await session.clockSkewWarning?.contains("behind") == true)
        // Expiry of the access token counts from local receipt, so it stays usable on the local clock.
        #expect(saved.token.isValid(at: clock.now(), minTTL: 60))
    }

    /// The `Date` header is not signed and may come from any proxy: it moves the time checks by at
    /// most `ClockSkew.maxShift`, so a day of difference is a verification failure, with the skew reported.
    @Test func theShiftIsCappedWhateverTheDateHeaderSays() {
        let c = VirtualClock()
        #expect(ClockSkew.timeSource(c, skew: 86_400, leeway: 60).now() == c.now().addingTimeInterval(300))
        #expect(ClockSkew.timeSource(c, skew: -86_400, leeway: 60).now() == c.now().addingTimeInterval(-300))
        #expect(ClockSkew.timeSource(c, skew: 7200, leeway: 60).now() == c.now().addingTimeInterval(300))
        let warning = ClockSkew.warning(skew: -86_400, leeway: 60)
        #expect(warning?.contains("86400 s ahead of") == true)
        #expect(warning?.contains("300 s") == true, "\(warning ?? "")")
    }

    @Test func aServerDateADayBehindDoesNotRescueAnExpiredIDToken() async throws {
        let clock = VirtualClock()
        let idp = try TestIssuer()
        let local = Int64(clock.now().timeIntervalSince1970)
        // Expired an hour ago on the local clock; "valid" only on a clock a day slow.
        let t = provider(idp, clock: clock, serverOffset: -86_400) { _ in
            TestIssuer.claims(now: clock.now(), extra: [("iat", .integer(local - 86_500)), ("exp", .integer(local - 3600))])
        }
        let store = MemoryTokenStore()
        await expectError(category: .verification) { try await signIn(t, idp, clock: clock, store: store) }
        #expect(store.session == nil)
    }

    @Test func aServerDateADayAheadDoesNotExpireAValidIDToken() async throws {
        let clock = VirtualClock()
        let idp = try TestIssuer()
        // Issued now for ten minutes on the local clock; the Date header claims tomorrow.
        let t = provider(idp, clock: clock, serverOffset: 86_400) { _ in TestIssuer.claims(now: clock.now()) }
        let (session, saved) = try await signIn(t, idp, clock: clock)
        #expect(saved.subject == "user-1")
        #expect(await session.clockSkewWarning?.contains("behind") == true)
    }

    @Test func aClockTwoHoursSlowIsRefusedAndTheSkewReported() async throws {
        // Beyond the cap the ID token's iat is in the future on every clock we accept: exit 8, and the
        // warning says why.
        let clock = VirtualClock()
        let idp = try TestIssuer()
        let store = MemoryTokenStore()
        let session = Session(configuration: testConfiguration(), store: store, transport: provider(idp, clock: clock, serverOffset: 7200),
                              time: clock, random: CountingRandom(), keySet: try idp.keySet())
        await expectError(category: .verification) { try await session.signIn(flow: .device, metadata: testMetadata()) }
        let skew = try #require(await session.observedClockSkew)
        #expect(abs(skew - 7200) < 10)
        #expect(await session.clockSkewWarning?.contains("behind") == true)
        #expect(store.session == nil)
    }

    @Test func refreshWithADateADayBehindDoesNotRescueAnExpiredIDToken() async throws {
        let clock = VirtualClock()
        let idp = try TestIssuer()
        let local = Int64(clock.now().timeIntervalSince1970)
        let now = clock.now()
        let t = provider(idp, clock: clock, serverOffset: -86_400) { _ in
            TestIssuer.claims(now: clock.now(), extra: [("iat", .integer(local - 86_500)), ("exp", .integer(local - 3600))])
        }
        let stored = StoredSession(profile: "default", issuer: TestIssuer.issuer, clientID: TestIssuer.clientID,
                                   token: Token(accessToken: "at-1", refreshToken: "rt-1", expiresAt: now, idToken: "id-old"),
                                   subject: "user-1", idTokenClaimsJSON: #"{"iss":"https://idp.example","sub":"user-1","aud":"device-client"}"#,
                                   metadata: testMetadata(), createdAt: now, updatedAt: now)
        let session = Session(configuration: testConfiguration(), store: MemoryTokenStore(stored), transport: t, time: clock,
                              random: CountingRandom(), keySet: try idp.keySet())
        await expectError(category: .verification) { try await session.validToken() }
    }

    @Test func smallSkewIsIgnored() {
        #expect(ClockSkew.warning(skew: 2, leeway: 60) == nil)
        let c = VirtualClock()
        #expect(ClockSkew.timeSource(c, skew: 30, leeway: 60).now() == c.now())
        #expect(ClockSkew.timeSource(c, skew: -300, leeway: 60).now() == c.now().addingTimeInterval(-300))
    }

    @Test func entraCommonIssuerTemplateOnlyWithTheQuirk() throws {
        let doc = try JSONParser().parseObject(Array(#"{"issuer":"https://login.microsoftonline.com/{tenantid}/v2.0","token_endpoint":"https://login.microsoftonline.com/common/oauth2/v2.0/token"}"#.utf8))
        let configured = "https://login.microsoftonline.com/common/v2.0"
        #expect(throws: LatchkeyError.self) { try ProviderDiscovery.parse(doc, expectedIssuer: configured) }
        let m = try ProviderDiscovery.parse(doc, expectedIssuer: configured, quirks: ProviderQuirks(entraTenantIssuer: true))
        #expect(m.issuer == "https://login.microsoftonline.com/{tenantid}/v2.0")
        // The template is not a wildcard for arbitrary hosts or tenants.
        #expect(throws: LatchkeyError.self) {
            try ProviderDiscovery.parse(doc, expectedIssuer: "https://evil.example/common/v2.0", quirks: ProviderQuirks(entraTenantIssuer: true))
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
