import Latchkey
import LatchkeyHTTP
import LatchkeyTesting
import Testing

/// The rules about which settings go together belong to the library: `problems(for:given:)`
/// returns them as data, and `Session.signIn` refuses with the first before sending anything, so a
/// program using the library gets the same early error as the CLI.
@Suite struct SignInRulesTests {
    let clock = VirtualClock()

    /// A server that answers everything; a rule that holds must keep `sent` empty.
    func server() -> ScriptedTransport {
        ScriptedTransport(clock: clock) { _, _ in Reply.json(200, #"{"issuer":"https://idp.example"}"#) }
    }

    func refusal(
        _ configuration: ClientConfiguration, flow: LoginFlow, secret: String? = nil,
        backchannel: BackchannelAuthenticationRequest? = nil
    ) async -> (ConfigurationProblem?, Int) {
        let t = server()
        let session = Session(
            configuration: configuration, store: MemoryTokenStore(), transport: t, time: clock,
            random: CountingRandom(), clientSecret: secret)
        do {
            _ = try await session.signIn(flow: flow, backchannel: backchannel)
            return (nil, t.sent.count)
        } catch {
            guard case .configuration(let problem) = error else { return (nil, t.sent.count) }
            return (problem, t.sent.count)
        }
    }

    @Test func cibaNeedsClientAuthenticationAndNothingIsSent() async throws {
        let hint = try BackchannelAuthenticationRequest(loginHint: "alice")
        let (problem, sent) = await refusal(
            ClientConfiguration(issuer: "https://idp.example", clientID: "c"), flow: .ciba,
            backchannel: hint)
        #expect(problem == .backchannelNeedsClientAuthentication)
        #expect(sent == 0)
        let confidential = ClientConfiguration(issuer: "https://idp.example", clientID: "c", authMethod: .clientSecretBasic)
        #expect(confidential.problems(for: .ciba, given: SignInMaterials(clientSecret: true, loginHint: true)).isEmpty)
    }

    @Test func aMissingSecretIsRefusedBeforeDiscovery() async {
        let c = ClientConfiguration(issuer: "https://idp.example", clientID: "c", authMethod: .clientSecretPost)
        let (problem, sent) = await refusal(c, flow: .device)
        #expect(problem == .missingClientSecret(method: .clientSecretPost))
        #expect(sent == 0)
    }

    /// The addresses are judged by the library's own URL rules (`HTTPURL`: https, or http to
    /// loopback; absolute URIs without fragment), not by their prefix.
    @Test func addressesUseTheLibrarysURLRules() async {
        var c = ClientConfiguration(issuer: "https://idp.example", clientID: "c")
        c.endpoints.token = "http://idp.example/token"
        var (problem, sent) = await refusal(c, flow: .device)
        #expect(problem == .unusableEndpoint(member: "token_endpoint", url: "http://idp.example/token"))
        #expect(sent == 0)
        c.endpoints.token = "http://127.0.0.1:8080/token"
        c.redirectURI = "http://127.0.0.1:8400/cb#top"
        (problem, sent) = await refusal(c, flow: .paste)
        #expect(
            problem
                == .unusableRedirectURI(
                    "http://127.0.0.1:8400/cb#top",
                    reason: "the redirect URI must be an absolute URI without fragment"))
        #expect(sent == 0)
        let issuer = ClientConfiguration(issuer: "https://idp.example/.well-known/openid-configuration", clientID: "c")
        #expect(
            issuer.problems(for: .device, given: SignInMaterials())
                == [.discoveryURLAsIssuer(given: issuer.issuer, issuer: "https://idp.example")])
        #expect(
            ClientConfiguration(issuer: "http://idp.example", clientID: "c").problems(for: .device, given: SignInMaterials())
                == [.unusableIssuer("http://idp.example")])
    }

    /// Every problem is returned, in order, as data.
    @Test func problemsAreData() {
        var c = ClientConfiguration(issuer: "https://idp.example", clientID: "c", authMethod: .tlsClientAuth, dpop: .never)
        c.resources = ["not a uri"]
        #expect(
            c.problems(for: .ciba, given: SignInMaterials()) == [
                .unusableResource("not a uri"), .missingClientCertificate(method: .tlsClientAuth), .missingLoginHint
            ])
        let offline = ClientConfiguration(issuer: "https://idp.example", clientID: "c", dpop: .never)
        #expect(offline.problems(for: .device, given: SignInMaterials(offlineAccess: .requireDPoP)) == [.offlineAccessWithoutDPoP])
        #expect(
            offline.problems(for: .clientCredentials, given: SignInMaterials(offlineAccess: .requireDPoP))
                == [.clientCredentialsNeedClientAuthentication])
        var par = ClientConfiguration(issuer: "https://idp.example", clientID: "c")
        par.par = .never
        var metadata = ProviderMetadata(issuer: "https://idp.example")
        metadata.requirePushedAuthorizationRequests = true
        #expect(par.problems(for: .browser, given: SignInMaterials(), metadata: metadata) == [.pushedAuthorizationRequired])
        #expect(par.problems(for: .device, given: SignInMaterials(), metadata: metadata).isEmpty)
    }
}
