import FoundationEssentials
import Testing
import LatchkeyHTTP
import LatchkeyJOSE
@testable import Latchkey

@Suite struct ClockSkewAndQuirkTests {
    /// An appliance booted with a clock two hours slow: the ID token's `iat` looks like the future
    /// unless time checks follow the server's `Date` header.
    @Test func signInWithASlowLocalClockUsesTheServerDate() async throws {
        let clock = VirtualClock()
        let serverNow = clock.now().addingTimeInterval(7200)
        let idp = try TestIssuer()
        let t = FakeTransport(clock: clock) { r, _ in
            switch r.url.path {
            case "/device": return DeviceFlowTests.standardDevice
            case "/token":
                let id = try idp.sign(TestIssuer.claims(now: serverNow))
                return Reply.json(200, #"{"access_token":"at","token_type":"Bearer","expires_in":3600,"id_token":"\#(id)"}"#,
                                  headers: [("Date", HTTPDate.format(serverNow.addingTimeInterval(5)))])
            default: return Reply.empty(404)
            }
        }
        let store = MemoryTokenStore()
        let session = Session(configuration: testConfiguration(), store: store, transport: t, time: clock,
                              random: CountingRandom(), keySet: try idp.keySet())
        let saved = try await session.signIn(flow: .device, metadata: testMetadata())
        #expect(saved.subject == "user-1")
        let skew = try #require(await session.observedClockSkew)
        #expect(abs(skew - 7200) < 10)
        #expect(await session.clockSkewWarning?.contains("behind") == true)
        // Expiry of the access token counts from local receipt, so it stays usable on the local clock.
        #expect(saved.token.isValid(at: clock.now(), minTTL: 60))
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
