import LatchkeyCrypto
import LatchkeyHTTP
import LatchkeyJOSE
import LatchkeyTestSupport
import LatchkeyTesting
import Synchronization
import Testing

@testable import Latchkey

/// Mutual-TLS client authentication (RFC 8705): the aliases in the metadata, which connections carry
/// the certificate, the checks made before anything is sent, the refusal after the handshake, and
/// the `cnf.x5t#S256` check.
@Suite struct MutualTLSTests {
    /// A throwaway self-signed P-256 client certificate valid 2026-12-01..2126-11-07 (clientAuth),
    /// made with `openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -days 36500
    /// -subj /CN=latchkey-unit-device -addext extendedKeyUsage=clientAuth …`.
    static let certificatePEM = """
        -----BEGIN CERTIFICATE-----
        MIIBtzCCAV2gAwIBAgIUIWQ6BxOpnhaXYzV7yuj6K7+pCCAwCgYIKoZIzj0EAwIw
        HzEdMBsGA1UEAwwUbGF0Y2hrZXktdW5pdC1kZXZpY2UwIBcNMjYxMjAxMTYwNDQw
        WhgPMjEyNjExMDcxNjA0NDBaMB8xHTAbBgNVBAMMFGxhdGNoa2V5LXVuaXQtZGV2
        aWNlMFkwEwYHKoZIzj0CAQYIKoZIzj0DAQcDQgAEm1/QFURWZAX+BBQA15r5X+uP
        CgX231ShcEb+mNeh7/qLIY2V0Fd1OGY5o8wNykkkZgZ9eIBfqO2ymBFBaDdAoqN1
        MHMwHQYDVR0OBBYEFL1pPbXB+bgwQn3GWacWCg44WI2bMB8GA1UdIwQYMBaAFL1p
        PbXB+bgwQn3GWacWCg44WI2bMAwGA1UdEwEB/wQCMAAwDgYDVR0PAQH/BAQDAgeA
        MBMGA1UdJQQMMAoGCCsGAQUFBwMCMAoGCCqGSM49BAMCA0gAMEUCIQD7dxIz3bhQ
        Sks3lopPRqJOYzkr6z+pfmDv77lC0732GQIgYWF7s1H5D/Zkv5vxoz9X58Yuhtd+
        guosnlwtCTjhtgk=
        -----END CERTIFICATE-----
        """
    /// Its key.
    static let keyPEM = """
        -----BEGIN PRIVATE KEY-----
        MIGHAgEAMBMGByqGSM49AgEGCCqGSM49AwEHBG0wawIBAQQgTuzL5Pdbq/J0qKeD
        /KiKQLAh2gDCSSey5wao1u6AMcGhRANCAASbX9AVRFZkBf4EFADXmvlf648KBfbf
        VKFwRv6Y16Hv+oshjZXQV3U4ZjmjzA3KSSRmBn14gF+o7bKYEUFoN0Ci
        -----END PRIVATE KEY-----
        """
    /// Another P-256 key, not the certificate's.
    static let otherKeyPEM = """
        -----BEGIN PRIVATE KEY-----
        MIGHAgEAMBMGByqGSM49AgEGCCqGSM49AwEHBG0wawIBAQQgEM1rUcyHxfEGFP9S
        G+B7rw1QLovhtVwziofDiqUzPVahRANCAAQx93n3R/nkoj0K9Wk7DQY93NEOm+V2
        uov3fb8umlKkC+zLobDfWks3piwabHjrH4Iowjq5a3Bt1WTY3BMYAU7l
        -----END PRIVATE KEY-----
        """
    /// base64url SHA-256 of the certificate's DER (`openssl x509 -outform der | openssl dgst -sha256`).
    static let thumbprint = "IX-GisRyQ4MIedkcLeETeUYMymbrFerwrEcWsuV5dQ4"
    static let subject = "CN=latchkey-unit-device"

    /// Serves the PEM strings and counts the reads (a session reads them once, when it makes its binding).
    final class Source: ClientCertificateSource {
        let key: String
        let reads = Mutex(0)
        init(key: String = MutualTLSTests.keyPEM) { self.key = key }
        func read() throws(LatchkeyError) -> ClientCertificateMaterial {
            reads.withLock { $0 += 1 }
            return ClientCertificateMaterial(
                certificateChainPEM: Array(MutualTLSTests.certificatePEM.utf8),
                privateKeyPEM: SecretBytes(Array(key.utf8)))
        }
    }

    let clock = VirtualClock()

    static func aliasedMetadata() -> ProviderMetadata {
        var m = testMetadata()
        m.mtlsEndpointAliases = MTLSEndpointAliases(
            tokenEndpoint: "https://mtls.idp.example/token",
            revocationEndpoint: "https://mtls.idp.example/revoke",
            deviceAuthorizationEndpoint: "https://mtls.idp.example/device")
        return m
    }

    /// A JWT-shaped access token (the client only reads it) with `cnf.x5t#S256`.
    static func boundToken(_ x5t: String = MutualTLSTests.thumbprint, refresh: Bool = true) -> HTTPResponse {
        let at = "eyJhbGciOiJSUzI1NiJ9." + Base64URL.encode(Array(#"{"sub":"u","cnf":{"x5t#S256":"\#(x5t)"}}"#.utf8)) + ".c2ln"
        return Reply.json(
            200, #"{"access_token":"\#(at)","token_type":"bearer","expires_in":3600\#(refresh ? #","refresh_token":"rt""# : "")}"#)
    }

    /// The provider's mutual-TLS side: device authorization, token and revocation.
    func certificateServer(token: HTTPResponse = MutualTLSTests.boundToken()) -> ScriptedTransport {
        ScriptedTransport(clock: clock) { r, _ in
            switch r.url.path {
            case "/device": return DeviceFlowTests.standardDevice
            case "/token": return token
            case "/revoke": return Reply.empty(200)
            default: return Reply.empty(404)
            }
        }
    }

    func session(
        plain: ScriptedTransport, certified: ScriptedTransport, source: Source = Source(),
        method: ClientAuthMethod = .tlsClientAuth, store: MemoryTokenStore = MemoryTokenStore()
    ) -> Session {
        Session(
            configuration: testConfiguration(authMethod: method), store: store, transports: EndpointTransports(plain),
            time: clock, random: CountingRandom(), keySet: StaticKeySet(try! JWKSet(data: Array(#"{"keys":[]}"#.utf8))),
            mutualTLS: MutualTLS(source: source) { _ in certified })
    }

    // MARK: Metadata

    @Test func aliasesAreReadStrictlyEvenFromAProviderAndRoundTrip() throws {
        let document = #"""
            {"issuer":"https://idp.example","token_endpoint":"https://idp.example/token","jwks_uri":7,
             "mtls_endpoint_aliases":{"token_endpoint":"https://mtls.idp.example/token",
               "device_authorization_endpoint":"https://mtls.idp.example/device","introspection_endpoint":"https://mtls.idp.example/i"}}
            """#
        let m = try ProviderMetadata(json: JSONParser().parseObject(Array(document.utf8)), lenient: true)
        #expect(m.jwksURI == nil)  // lenient elsewhere
        #expect(
            m.mtlsEndpointAliases
                == MTLSEndpointAliases(
                    tokenEndpoint: "https://mtls.idp.example/token",
                    deviceAuthorizationEndpoint: "https://mtls.idp.example/device"))
        #expect(try ProviderMetadata(json: m.json) == m)
        #expect(ProviderMetadata.memberNames.contains("mtls_endpoint_aliases"))
        for bad in [
            #""mtls_endpoint_aliases":{"token_endpoint":5}"#, #""mtls_endpoint_aliases":"https://mtls.idp.example""#,
            #""mtls_endpoint_aliases":{"revocation_endpoint":["https://a"]}"#
        ] {
            let json = try JSONParser().parseObject(Array(#"{"issuer":"https://idp.example",\#(bad)}"#.utf8))
            #expect(throws: DocumentError.self) { _ = try ProviderMetadata(json: json, lenient: true) }
        }
    }

    @Test func aliasesReplaceOnlyTheEndpointsTheyName() {
        let plain = testMetadata()
        #expect(plain.usingMutualTLSAliases == plain)
        let m = Self.aliasedMetadata().usingMutualTLSAliases
        #expect(m.tokenEndpoint == "https://mtls.idp.example/token")
        #expect(m.revocationEndpoint == "https://mtls.idp.example/revoke")
        #expect(m.deviceAuthorizationEndpoint == "https://mtls.idp.example/device")
        #expect(m.jwksURI == plain.jwksURI && m.authorizationEndpoint == plain.authorizationEndpoint)
        var partial = testMetadata()
        partial.mtlsEndpointAliases = MTLSEndpointAliases(tokenEndpoint: "https://mtls.idp.example/token")
        #expect(partial.usingMutualTLSAliases.revocationEndpoint == plain.revocationEndpoint)
        // RFC 8705 §5 names PAR's endpoint too: a pushed request authenticates the client.
        var pushed = testMetadata()
        pushed.pushedAuthorizationRequestEndpoint = "https://idp.example/par"
        pushed.mtlsEndpointAliases = MTLSEndpointAliases(pushedAuthorizationRequestEndpoint: "https://mtls.idp.example/par")
        #expect(pushed.usingMutualTLSAliases.pushedAuthorizationRequestEndpoint == "https://mtls.idp.example/par")
        var ciba = testMetadata()
        ciba.backchannelAuthenticationEndpoint = "https://idp.example/ciba"
        ciba.mtlsEndpointAliases = MTLSEndpointAliases(backchannelAuthenticationEndpoint: "https://mtls.idp.example/ciba")
        #expect(ciba.usingMutualTLSAliases.backchannelAuthenticationEndpoint == "https://mtls.idp.example/ciba")
    }

    @Test func discoveryRefusesAnAliasThatIsNotHTTPS() throws {
        var m = testMetadata()
        m.mtlsEndpointAliases = MTLSEndpointAliases(tokenEndpoint: "http://mtls.idp.example/token")
        #expect(throws: LatchkeyError.self) { _ = try ProviderDiscovery.validated(m) }
        m.mtlsEndpointAliases = MTLSEndpointAliases(tokenEndpoint: "http://127.0.0.1:8443/token")
        #expect(try ProviderDiscovery.validated(m) == m)
    }

    // MARK: Which connections carry the certificate

    @Test func onlyTheRolesWhereTheClientAuthenticatesGetTheCertificate() throws {
        let plain = ScriptedTransport(clock: clock) { _, _ in Reply.empty(200) }
        let certified = ScriptedTransport(clock: clock) { _, _ in Reply.empty(200) }
        let mtls = MutualTLS(source: Source()) { _ in certified }
        let transports = mtls.transports(EndpointTransports(plain), presenting: try mtls.identity(at: clock.now()))
        for role in EndpointRole.allCases {
            let expected: ScriptedTransport = role.authenticatesClient ? certified : plain
            #expect((transports.transport(for: role) as? ScriptedTransport) === expected, "\(role)")
        }
        #expect(
            Set(MutualTLS.certificateRoles) == [
                .token, .revocation, .pushedAuthorization, .deviceAuthorization,
                .backchannelAuthentication
            ])
        #expect(!MutualTLS.certificateRoles.contains(.resource) && !MutualTLS.certificateRoles.contains(.discovery))
    }

    /// The certificate is read once, at sign-in: the session holds its binding, presenting that
    /// identity, for the refresh and the logout after it.
    @Test func signInRefreshAndLogoutGoToTheAliasesWithTheCertificateReadOnce() async throws {
        let plain = ScriptedTransport(clock: clock) { _, _ in Reply.empty(404) }
        let certified = certificateServer()
        let source = Source()
        let session = session(plain: plain, certified: certified, source: source)
        let events = Mutex<[LoginEvent]>([])
        let saved = try await session.signIn(
            flow: .device, metadata: Self.aliasedMetadata(), events: { e in events.withLock { $0.append(e) } })
        #expect(certified.sent.map(\.request.url.absoluteString) == ["https://mtls.idp.example/device", "https://mtls.idp.example/token"])
        #expect(plain.sent.isEmpty)
        for request in certified.sent {
            #expect(request.form["client_id"] == TestIssuer.clientID)
            #expect(request.form["client_secret"] == nil && request.header("Authorization") == nil)
        }
        // The provider's own metadata is stored; the aliases are applied at each use.
        #expect(saved.metadata.tokenEndpoint == "https://idp.example/token" && saved.metadata == Self.aliasedMetadata())
        #expect(TokenBinding(saved.token) == .mtls)
        let bindings = events.withLock {
            $0.compactMap { e -> TokenBinding? in
                if case .authorized(_, _, _, _, _, let binding) = e { return binding }
                return nil
            }
        }
        #expect(bindings == [.mtls])

        _ = try await session.refresh()
        #expect(certified.sent.last?.request.url.absoluteString == "https://mtls.idp.example/token")
        #expect(certified.sent.last?.form["grant_type"] == "refresh_token")
        _ = try await session.logout()
        #expect(
            certified.sent.suffix(2).map(\.request.url.absoluteString) == [
                "https://mtls.idp.example/revoke", "https://mtls.idp.example/revoke"
            ])
        #expect(plain.sent.isEmpty)
        #expect(source.reads.withLock { $0 } == 1, "the binding was made again")
    }

    /// private_key_jwt with `aud` = the endpoint while a certificate is presented (certificate-bound
    /// tokens): the requests go to the aliases, but each assertion names the ordinary endpoint the
    /// metadata gives for that role (Glewlwyd wants `<issuer>/token` for `…/mtls/token`), at
    /// sign-in, refresh and logout alike.
    @Test func anEndpointAudienceNamesTheOrdinaryEndpointOfAnAlias() async throws {
        let plain = ScriptedTransport(clock: clock) { _, _ in Reply.empty(404) }
        let certified = certificateServer()
        var configuration = testConfiguration(authMethod: .privateKeyJWT)
        configuration.clientAssertion.audience = .endpoint
        let session = Session(
            configuration: configuration, store: MemoryTokenStore(), transports: EndpointTransports(plain),
            time: clock, random: CountingRandom(), keySet: StaticKeySet(try JWKSet(data: Array(#"{"keys":[]}"#.utf8))),
            mutualTLS: MutualTLS(source: Source()) { _ in certified },
            clientKey: PrivateKeyJWTTests.MemoryKey(PEMFixtures.p256PKCS8))
        _ = try await session.signIn(flow: .device, metadata: Self.aliasedMetadata())
        _ = try await session.refresh()
        _ = try await session.logout()
        func audience(_ request: ScriptedTransport.SentRequest) -> String? {
            guard let jwt = request.form["client_assertion"], let payload = jwt.split(separator: ".").dropFirst().first,
                let bytes = try? Base64URL.decode(payload), let claims = try? JSONParser().parseObject(bytes)
            else { return nil }
            return claims["aud"]?.stringValue
        }
        #expect(
            certified.sent.map(\.request.url.absoluteString)
                == [
                    "https://mtls.idp.example/device", "https://mtls.idp.example/token", "https://mtls.idp.example/token",
                    "https://mtls.idp.example/revoke", "https://mtls.idp.example/revoke"
                ])
        #expect(
            certified.sent.map(audience) == [
                "https://idp.example/device", "https://idp.example/token", "https://idp.example/token",
                "https://idp.example/revoke", "https://idp.example/revoke"
            ])
        #expect(plain.sent.isEmpty)
    }

    @Test func eachAliasMapsToTheOrdinaryEndpointOfItsRole() {
        #expect(testMetadata().ordinaryEndpointsByAlias.isEmpty)
        #expect(
            Self.aliasedMetadata().ordinaryEndpointsByAlias == [
                "https://mtls.idp.example/token": "https://idp.example/token",
                "https://mtls.idp.example/revoke": "https://idp.example/revoke",
                "https://mtls.idp.example/device": "https://idp.example/device"
            ])
        // Metadata stored with the aliases already applied (alias = endpoint) maps nothing.
        #expect(Self.aliasedMetadata().usingMutualTLSAliases.ordinaryEndpointsByAlias.isEmpty)
        var par = testMetadata()
        par.pushedAuthorizationRequestEndpoint = "https://idp.example/par"
        par.backchannelAuthenticationEndpoint = "https://idp.example/ciba"
        par.mtlsEndpointAliases = MTLSEndpointAliases(
            pushedAuthorizationRequestEndpoint: "https://mtls.idp.example/par",
            backchannelAuthenticationEndpoint: "https://mtls.idp.example/ciba")
        #expect(
            par.ordinaryEndpointsByAlias == [
                "https://mtls.idp.example/par": "https://idp.example/par",
                "https://mtls.idp.example/ciba": "https://idp.example/ciba"
            ])
        // The issuer audience is untouched by aliases.
        let (issuerAud, _) = PrivateKeyJWTTests.authenticator()
        let bound = issuerAud.bound(to: Self.aliasedMetadata()) as! PrivateKeyJWTAuthentication
        #expect(bound.audience(for: HTTPURL(string: "https://mtls.idp.example/token")!) == TestIssuer.issuer)
        let (endpointAud, _) = PrivateKeyJWTTests.authenticator(PEMFixtures.p256PKCS8, ClientAssertionSettings(audience: .endpoint))
        let boundEndpoint = endpointAud.bound(to: Self.aliasedMetadata()) as! PrivateKeyJWTAuthentication
        #expect(boundEndpoint.audience(for: HTTPURL(string: "https://mtls.idp.example/token")!) == "https://idp.example/token")
        #expect(boundEndpoint.audience(for: HTTPURL(string: "https://idp.example/other")!) == "https://idp.example/other")
    }

    @Test func withoutAliasesTheOrdinaryEndpointsGetTheCertificate() async throws {
        let plain = ScriptedTransport(clock: clock) { _, _ in Reply.empty(404) }
        let certified = certificateServer()
        _ = try await session(plain: plain, certified: certified, method: .selfSignedTLSClientAuth)
            .signIn(flow: .device, metadata: testMetadata())
        #expect(certified.sent.map(\.request.url.absoluteString) == ["https://idp.example/device", "https://idp.example/token"])
        #expect(plain.sent.isEmpty)
    }

    // MARK: Before anything is sent

    @Test func anExpiredCertificateOrAForeignKeyFailsBeforeAnythingIsSent() async throws {
        let plain = ScriptedTransport(clock: clock) { _, _ in Reply.empty(404) }
        let certified = certificateServer()
        let late = VirtualClock(start: Timestamp(timeIntervalSince1970: 4_999_999_999))  // 2128, past notAfter
        let expired = Session(
            configuration: testConfiguration(authMethod: .tlsClientAuth), store: MemoryTokenStore(),
            transports: EndpointTransports(plain), time: late, random: CountingRandom(),
            mutualTLS: MutualTLS(source: Source()) { _ in certified })
        do {
            _ = try await expired.signIn(flow: .device)  // discovery would be the first request
            Issue.record("an expired certificate was accepted")
        } catch {
            guard case .clientCertificate(.unusable(.expired)) = error else { Issue.record("got \(error)"); return }
            #expect(error.category == .storage)
        }
        do {
            _ = try await session(plain: plain, certified: certified, source: Source(key: Self.otherKeyPEM)).signIn(flow: .device)
            Issue.record("a foreign key was accepted")
        } catch {
            #expect(error.message == "client private key does not match the client certificate")
            guard case .clientCertificate(.unusable(.keyDoesNotMatchCertificate)) = error else { Issue.record("got \(error)"); return }
        }
        #expect(plain.sent.isEmpty && certified.sent.isEmpty)
    }

    @Test func aMutualTLSMethodWithoutACertificateIsAConfigurationProblem() async throws {
        let plain = ScriptedTransport(clock: clock) { _, _ in Reply.empty(404) }
        let session = Session(
            configuration: testConfiguration(authMethod: .tlsClientAuth), store: MemoryTokenStore(),
            transport: plain, time: clock, random: CountingRandom())
        do {
            _ = try await session.signIn(flow: .device, metadata: testMetadata())
            Issue.record("signed in without a certificate")
        } catch {
            guard case .configuration(.missingClientCertificate(.tlsClientAuth)) = error else { Issue.record("got \(error)"); return }
        }
        #expect(plain.sent.isEmpty)
    }

    // MARK: The server's answers

    @Test func aRefusalAfterTheHandshakeNamesTheCertificate() async throws {
        for (reply, code) in [
            (Reply.empty(403), nil), (Reply.json(403, #"{"error":"unauthorized_client"}"#), "unauthorized_client"),
            (Reply.json(401, #"{"error":"invalid_client"}"#), "invalid_client")
        ] as [(HTTPResponse, String?)] {
            let certified = ScriptedTransport(clock: clock) { _, _ in reply }
            let plain = ScriptedTransport(clock: clock) { _, _ in Reply.empty(404) }
            do {
                _ = try await session(plain: plain, certified: certified).signIn(flow: .device, metadata: testMetadata())
                Issue.record("a refusal was not reported")
            } catch {
                guard case .clientCertificate(.refused(.deviceAuthorization, reply.status, code, Self.subject)) = error else {
                    Issue.record("got \(error)"); continue
                }
                #expect(error.category == .protocolViolation)
                #expect(error.message.contains("refused the client certificate \"\(Self.subject)\""))
            }
        }
    }

    @Test func otherAnswersAndOtherRolesAreNotCertificateRefusals() async throws {
        let t = ScriptedTransport(clock: clock) { _, _ in Reply.json(403, #"{"error":"access_denied"}"#) }
        let identity = try MutualTLS(source: Source()) { _ in t }.identity(at: clock.now())
        func binding(_ transport: ScriptedTransport, certificate: TLSClientIdentity?) -> SessionBinding {
            SessionBinding(
                clientAuthentication: PublicClientAuthentication(clientID: "c"), certificate: certificate,
                transports: EndpointTransports(transport), time: clock, random: CountingRandom())
        }
        let url = HTTPURL(string: "https://idp.example/token")!
        #expect(try await binding(t, certificate: identity).attempt(ProviderRequest(role: .token, url: url)).status == 403)
        let empty = ScriptedTransport(clock: clock) { _, _ in Reply.empty(403) }
        #expect(
            try await binding(empty, certificate: identity).attempt(ProviderRequest(role: .resource, method: "GET", url: url)).status == 403
        )
        #expect(
            try await binding(empty, certificate: identity).attempt(ProviderRequest(role: .discovery, method: "GET", url: url)).status
                == 403)
        // Without a certificate a bare 403 stays what it was.
        #expect(try await binding(empty, certificate: nil).attempt(ProviderRequest(role: .token, url: url)).status == 403)
    }

    @Test func aTokenBoundToAnotherCertificateIsRefused() async throws {
        let plain = ScriptedTransport(clock: clock) { _, _ in Reply.empty(404) }
        let foreign = "AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA"
        do {
            _ = try await session(plain: plain, certified: certificateServer(token: Self.boundToken(foreign)))
                .signIn(flow: .device, metadata: testMetadata())
            Issue.record("a foreign x5t#S256 was accepted")
        } catch {
            guard case .tokenBinding(.certificateThumbprintMismatch(Self.thumbprint, foreign)) = error else {
                Issue.record("got \(error)"); return
            }
            #expect(error.category == .protocolViolation)
        }
    }

    @Test func theThumbprintCheckAndTheBinding() throws {
        let bound = TokenResponse.parse(Self.boundToken())
        guard case .token(let token) = bound else { Issue.record("\(bound)"); return }
        let ours = try Base64URL.decode(Self.thumbprint)
        try TokenBindingCheck.checkCertificate(token, certificateThumbprint: ours)
        #expect(throws: LatchkeyError.self) {
            try TokenBindingCheck.checkCertificate(token, certificateThumbprint: [UInt8](repeating: 0, count: 32))
        }
        // Opaque tokens and JWTs without the member cannot be checked and pass.
        try TokenBindingCheck.checkCertificate(TokenResponse(accessToken: "opaque"), certificateThumbprint: [0])
        #expect(TokenBinding(Token(accessToken: token.accessToken, tokenType: "Bearer")) == .mtls)
        #expect(TokenBinding(Token(accessToken: "opaque", tokenType: "Bearer")) == .none)
        #expect(TokenBinding(Token(accessToken: token.accessToken, tokenType: "DPoP")) == .dpop)
        #expect(TokenBinding.allCases.map(\.rawValue) == ["none", "dpop", "mtls"])
    }

    @Test func theIdentityCarriesTheThumbprintTheTokensAreBoundTo() throws {
        let identity = try MutualTLS(source: Source()) { _ in ScriptedTransport(clock: clock) { _, _ in Reply.empty(200) } }
            .identity(at: clock.now())
        #expect(Base64URL.encode(identity.certificateThumbprintSHA256) == Self.thumbprint)
        #expect(identity.subject == Self.subject)
    }

    // MARK: Client authentication and the profile

    @Test func theMutualTLSMethodsSendTheClientIDAndNoSecret() throws {
        for method in [ClientAuthMethod.tlsClientAuth, .selfSignedTLSClientAuth] {
            #expect(method.usesClientCertificate)
            let authenticator = try method.authenticator(clientID: "c", secret: nil)
            for role in EndpointRole.allCases {
                var request = ProviderRequest(role: role, url: HTTPURL(string: "https://idp.example/x")!)
                try authenticator.authenticate(
                    &request,
                    context: RequestContext(
                        now: clock.now(), random: CountingRandom(),
                        nonces: ServerNonces()))
                #expect(request.form.map(\.0) == (role.authenticatesClient ? ["client_id"] : []), "\(role)")
                #expect(request.headers.isEmpty)
            }
        }
        #expect(!ClientAuthMethod.none.usesClientCertificate && !ClientAuthMethod.clientSecretBasic.usesClientCertificate)
        #expect(ClientAuthMethod(rawValue: "tls_client_auth") == .tlsClientAuth)
        #expect(ClientAuthMethod(rawValue: "self_signed_tls_client_auth") == .selfSignedTLSClientAuth)
    }

    @Test func theProfileRemembersTheFilesByPath() throws {
        var settings = ProfileSettings(client: testConfiguration(authMethod: .tlsClientAuth), keySource: .machine)
        settings.clientCertificateFile = "/etc/latchkey/device.pem"
        settings.clientCertificateKeyFile = "/etc/latchkey/device.key"
        guard case .object(let json) = settings.json else { Issue.record("not an object"); return }
        #expect(json["client_cert_file"] == .string("/etc/latchkey/device.pem"))
        #expect(json["client_cert_key_file"] == .string("/etc/latchkey/device.key"))
        #expect(json["auth_method"] == .string("tls_client_auth"))
        #expect(try ProfileSettings(json: json, path: "p") == settings)
    }

    @Test func theProfileRemembersTheCABundleByPathLast() throws {
        var settings = ProfileSettings(client: testConfiguration(authMethod: .none), keySource: .machine)
        guard case .object(let bare) = settings.json else { Issue.record("not an object"); return }
        #expect(bare["ca_file"] == nil, "written only when set")
        settings.caFile = "/etc/latchkey/corp-ca.pem"
        guard case .object(let json) = settings.json else { Issue.record("not an object"); return }
        #expect(json["ca_file"] == .string("/etc/latchkey/corp-ca.pem"))
        #expect(json.keys.last == "ca_file")
        #expect(try ProfileSettings(json: json, path: "p") == settings)
        var wrong = json
        wrong["ca_file"] = .number("1")
        #expect(throws: ProfileFileError.self) { _ = try ProfileSettings(json: wrong, path: "p") }
    }
}
