import LatchkeyCrypto
import LatchkeyHTTP
import LatchkeyJOSE
import LatchkeyTestSupport
import LatchkeyTesting
import Synchronization
import Testing

@testable import Latchkey

/// An endpoint the operator names (`--token-endpoint`, `--revocation-endpoint`, …) wins over
/// anything discovered, `mtls_endpoint_aliases` included (RFC 8705 §5 aliases stand in for the
/// *metadata's* endpoints): an alias applies only to an endpoint that was itself discovered.
@Suite struct ExplicitEndpointTests {
    let clock = VirtualClock()
    static let overrides = EndpointOverrides(token: "https://op.example/token", revocation: "https://op.example/revoke")

    @Test func overriddenEndpointsKeepTheirURLWhenTheAliasesApply() {
        let m = Self.overrides.applied(to: MutualTLSTests.aliasedMetadata()).usingMutualTLSAliases
        #expect(m.tokenEndpoint == "https://op.example/token")
        #expect(m.revocationEndpoint == "https://op.example/revoke")
        // The device endpoint was discovered: its alias still applies.
        #expect(m.deviceAuthorizationEndpoint == "https://mtls.idp.example/device")
        // An explicit endpoint has no ordinary counterpart to name in an assertion's `aud`.
        #expect(
            Self.overrides.applied(to: MutualTLSTests.aliasedMetadata()).ordinaryEndpointsByAlias
                == ["https://mtls.idp.example/device": "https://idp.example/device"])
    }

    @Test func signInRefreshAndLogoutUseTheExplicitEndpointsWithTheCertificate() async throws {
        let plain = ScriptedTransport(clock: clock) { _, _ in Reply.empty(404) }
        let certified = ScriptedTransport(clock: clock) { r, _ in
            switch r.url.path {
            case "/device": return DeviceFlowTests.standardDevice
            case "/token": return MutualTLSTests.boundToken()
            case "/revoke": return Reply.empty(200)
            default: return Reply.empty(404)
            }
        }
        var configuration = testConfiguration(authMethod: .tlsClientAuth)
        configuration.endpoints = Self.overrides
        let session = Session(
            configuration: configuration, store: MemoryTokenStore(), transports: EndpointTransports(plain),
            time: clock, random: CountingRandom(),
            keySet: StaticKeySet(try JWKSet(data: Array(#"{"keys":[]}"#.utf8))),
            mutualTLS: MutualTLS(source: MutualTLSTests.Source()) { _ in certified })
        _ = try await session.signIn(flow: .device, metadata: MutualTLSTests.aliasedMetadata(), events: { _ in })
        _ = try await session.refresh()
        _ = try await session.logout()
        #expect(
            certified.sent.map(\.request.url.absoluteString) == [
                "https://mtls.idp.example/device", "https://op.example/token", "https://op.example/token",
                "https://op.example/revoke", "https://op.example/revoke"
            ])
    }

    /// A session file written before the rule (aliases kept beside the explicit endpoints) is
    /// read the same way: the profile's overrides are applied again before the aliases.
    @Test func aStoredSessionWithAliasesStillUsesTheExplicitEndpoints() async throws {
        let certified = ScriptedTransport(clock: clock) { _, _ in MutualTLSTests.boundToken() }
        var configuration = testConfiguration(authMethod: .tlsClientAuth)
        configuration.endpoints = Self.overrides
        var stored = MutualTLSTests.aliasedMetadata()
        stored.tokenEndpoint = "https://op.example/token"
        stored.revocationEndpoint = "https://op.example/revoke"
        let mtls = MutualTLS(source: MutualTLSTests.Source()) { _ in certified }
        let binding = SessionBinding(
            clientAuthentication: TLSClientAuthentication(clientID: "c"),
            certificate: try mtls.identity(at: clock.now()), transports: EndpointTransports(certified),
            time: clock, random: CountingRandom())
        let client = TokenClient(configuration: configuration, metadata: stored, binding: binding)
        #expect(client.metadata.tokenEndpoint == "https://op.example/token")
        #expect(client.metadata.revocationEndpoint == "https://op.example/revoke")
        #expect(client.metadata.deviceAuthorizationEndpoint == "https://mtls.idp.example/device")
    }
}
