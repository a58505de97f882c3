import Glibc
import LatchkeyCrypto
import LatchkeyHTTP
import LatchkeyJOSE
import LatchkeyTestSupport
import LatchkeyTesting
import Synchronization
import Testing

@testable import Latchkey

/// `private_key_jwt` (RFC 7523 as profiled by its successor draft): the assertion's claims and
/// header, the algorithm rules, the key read at each use, and how refusals are reported.
@Suite struct PrivateKeyJWTTests {
    static let issuer = "https://idp.example/realm"
    static let tokenURL = HTTPURL(string: "https://idp.example/realm/protocol/token")!

    /// A key source holding PEM text in memory that counts how often it was asked.
    final class MemoryKey: ClientKeySource {
        let pem: String
        let reads = Mutex(0)
        init(_ pem: String) { self.pem = pem }
        func privateKeyPEM() throws(LatchkeyError) -> SecretBytes {
            reads.withLock { $0 += 1 }
            return SecretBytes(Array(pem.utf8))
        }
        var count: Int { reads.withLock { $0 } }
    }

    static func authenticator(_ pem: String = PEMFixtures.p256PKCS8, _ settings: ClientAssertionSettings = .init())
        -> (PrivateKeyJWTAuthentication, MemoryKey)
    {
        let key = MemoryKey(pem)
        return (PrivateKeyJWTAuthentication(clientID: "device-7", issuer: issuer, key: key, settings: settings), key)
    }

    /// Header and claims of `assertion`, after checking its signature with `pem`'s public key.
    static func verified(_ assertion: String, pem: String, alg: JWSAlgorithm) throws -> (JOSEHeader, JSONObject) {
        let jws = try JWS(compact: assertion)
        let publicKey = try SigningKey(pem: pem, random: CountingRandom()).publicKey
        let jwk = JWK(publicKey: publicKey, keyID: jws.header.kid)
        _ = try JWSVerifier.verify(jws, keys: JWKSet(keys: [jwk]), allowedAlgorithms: [alg])
        return (jws.header, try JSONParser().parseObject(jws.payload))
    }

    @Test func theAssertionHasEveryClaimFromTheInjectedClockAndRandomness() throws {
        let clock = VirtualClock(start: Timestamp(timeIntervalSince1970: 1_800_000_000.75))
        let (auth, _) = Self.authenticator()
        let assertion = try auth.assertion(audience: Self.issuer, at: clock.now(), random: CountingRandom(seed: 3))
        let (header, claims) = try Self.verified(assertion, pem: PEMFixtures.p256PKCS8, alg: .es256)
        #expect(header.alg == "ES256" && header.typ == "client-authentication+jwt" && header.kid == nil)
        #expect(header.json.keys == ["alg", "typ"])
        #expect(claims.keys == ["iss", "sub", "aud", "jti", "iat", "exp"])
        #expect(claims["iss"] == .string("device-7") && claims["sub"] == .string("device-7"))
        #expect(claims["aud"] == .string(Self.issuer))
        #expect(claims["iat"] == .integer(1_800_000_000))
        #expect(claims["exp"] == .integer(1_800_000_060))
        #expect(claims["jti"] == .string(Base64URL.encode(CountingRandom(seed: 3).bytes(16))))
    }

    @Test func kidTypAndAlgorithmFollowTheSettings() throws {
        let (auth, _) = Self.authenticator(
            PEMFixtures.rsa2048PKCS8, ClientAssertionSettings(algorithm: .ps256, keyID: "factory-1", type: .jwt))
        let assertion = try auth.assertion(audience: "aud", at: VirtualClock().now(), random: CountingRandom())
        let (header, _) = try Self.verified(assertion, pem: PEMFixtures.rsa2048PKCS8, alg: .ps256)
        #expect(header.alg == "PS256" && header.typ == "jwt" && header.kid == "factory-1")
        #expect(header.json.keys == ["alg", "typ", "kid"])
    }

    @Test(arguments: [(PEMFixtures.p256PKCS8, "ES256"), (PEMFixtures.p384PKCS8, "ES384"), (PEMFixtures.rsa2048PKCS1, "RS256")])
    func withoutAnAlgorithmTheKeysOwnIsUsed(pem: String, alg: String) throws {
        let (auth, _) = Self.authenticator(pem)
        let jws = try JWS(compact: try auth.assertion(audience: "a", at: VirtualClock().now(), random: CountingRandom()))
        #expect(jws.header.alg == alg)
    }

    @Test func anAlgorithmThatDoesNotFitTheKeyIsRefusedClearly() throws {
        for (pem, alg, key) in [
            (PEMFixtures.p256PKCS8, JWSAlgorithm.ps256, "EC P-256"), (PEMFixtures.p256PKCS8, .es384, "EC P-256"),
            (PEMFixtures.rsa2048PKCS8, .es256, "RSA")
        ] {
            let (auth, _) = Self.authenticator(pem, ClientAssertionSettings(algorithm: alg))
            #expect {
                try auth.assertion(audience: "a", at: VirtualClock().now(), random: CountingRandom())
            } throws: { error in
                guard case .configuration(.clientKeyDoesNotFitAlgorithm(alg.rawValue, key))? = error as? LatchkeyError else { return false }
                return "\(error)".contains(alg.rawValue)
            }
        }
    }

    @Test func theAlgorithmMustBeAdvertisedWhenTheMetadataListsAny() throws {
        var metadata = ProviderMetadata(issuer: Self.issuer)
        metadata.tokenEndpointAuthSigningAlgValuesSupported = ["PS256", "RS256"]
        let bound = try #require(Self.authenticator().0.bound(to: metadata) as? PrivateKeyJWTAuthentication)
        #expect {
            try bound.assertion(audience: "a", at: VirtualClock().now(), random: CountingRandom())
        } throws: { error in
            guard case .configuration(.clientAssertionAlgorithmNotAdvertised("ES256", ["PS256", "RS256"]))? = error as? LatchkeyError
            else { return false }
            return true
        }
        // Advertised, or not advertised at all (the list absent or empty): signed.
        for list in [["ES256"], [], nil] as [[String]?] {
            metadata.tokenEndpointAuthSigningAlgValuesSupported = list
            let ok = try #require(Self.authenticator().0.bound(to: metadata) as? PrivateKeyJWTAuthentication)
            _ = try ok.assertion(audience: "a", at: VirtualClock().now(), random: CountingRandom())
        }
    }

    @Test func theFormCarriesClientIDTypeAndAssertionOnlyWhereTheClientAuthenticates() throws {
        let (auth, key) = Self.authenticator()
        let context = RequestContext(now: VirtualClock().now(), random: CountingRandom(), nonces: ServerNonces())
        for role in EndpointRole.allCases {
            var request = ProviderRequest(role: role, url: Self.tokenURL, form: [("grant_type", "refresh_token")])
            try auth.authenticate(&request, context: context)
            if role.authenticatesClient {
                #expect(request.form.map(\.0) == ["grant_type", "client_id", "client_assertion_type", "client_assertion"], "\(role)")
                #expect(request.form[1].1 == "device-7")
                #expect(request.form[2].1 == "urn:ietf:params:oauth:client-assertion-type:jwt-bearer")
                #expect(request.header("Authorization") == nil)
            } else {
                #expect(request.form.count == 1, "\(role) got client authentication")
            }
        }
        // Read once per request that needed it: never kept between uses.
        #expect(key.count == EndpointRole.allCases.filter(\.authenticatesClient).count)
    }

    @Test func theAudienceIsTheBoundIssuerOrTheExactEndpoint() throws {
        var metadata = ProviderMetadata(issuer: "https://idp.example/realm/")  // as discovery spells it
        metadata.tokenEndpoint = Self.tokenURL.absoluteString
        let issuerMode = try #require(Self.authenticator().0.bound(to: metadata) as? PrivateKeyJWTAuthentication)
        #expect(issuerMode.audience(for: Self.tokenURL) == "https://idp.example/realm/")
        let endpointMode = Self.authenticator(PEMFixtures.p256PKCS8, ClientAssertionSettings(audience: .endpoint)).0
        let device = HTTPURL(string: "https://idp.example/realm/device_authorization")!
        #expect(endpointMode.audience(for: device) == "https://idp.example/realm/device_authorization")
        #expect(endpointMode.audience(for: Self.tokenURL) == Self.tokenURL.absoluteString)
    }

    @Test func theTokenClientBindsItsPipelineToTheMetadataAndEveryRequestGetsAFreshJTI() async throws {
        let clock = VirtualClock()
        let transport = ScriptedTransport(clock: clock) { _, _ in
            Reply.json(200, #"{"access_token":"at","token_type":"Bearer","expires_in":60}"#)
        }
        let (auth, key) = Self.authenticator()
        var metadata = ProviderMetadata(issuer: "https://other.example")
        metadata.tokenEndpoint = Self.tokenURL.absoluteString
        let client = TokenClient(
            configuration: ClientConfiguration(issuer: Self.issuer, clientID: "device-7", authMethod: .privateKeyJWT),
            metadata: metadata,
            binding: SessionBinding(
                clientAuthentication: auth, transports: EndpointTransports(transport),
                time: clock, random: try SecureRandom()))
        _ = try await client.refresh(refreshToken: "rt1")
        clock.advance(5)
        _ = try await client.refresh(refreshToken: "rt2")
        let claims = try transport.sent.map { sent in
            try JSONParser().parseObject(try JWS(compact: try #require(sent.form["client_assertion"])).payload)
        }
        #expect(claims.map { $0["aud"] } == [.string("https://other.example"), .string("https://other.example")])
        #expect(claims[0]["jti"] != claims[1]["jti"])
        #expect(claims[1]["iat"] == .integer(clock.now().epochSeconds))
        #expect(key.count == 2)
    }

    @Test func anUnadvertisedAlgorithmSendsNothing() async throws {
        let transport = ScriptedTransport(script: [])
        var metadata = ProviderMetadata(issuer: Self.issuer)
        metadata.tokenEndpoint = Self.tokenURL.absoluteString
        metadata.tokenEndpointAuthSigningAlgValuesSupported = ["RS256"]
        let client = try TokenClient.testing(
            configuration: ClientConfiguration(issuer: Self.issuer, clientID: "d", authMethod: .privateKeyJWT),
            metadata: metadata, transport: transport, clientKey: MemoryKey(PEMFixtures.p256PKCS8),
            time: VirtualClock(), random: CountingRandom())
        await #expect(throws: LatchkeyError.self) { _ = try await client.refresh(refreshToken: "rt") }
        #expect(transport.sent.isEmpty)
    }

    @Test func refusalsOfTheAssertionNameTheAudienceUsed() async throws {
        for (status, body, expectedCode) in [
            (403, "", nil), (401, #"{"error":"unauthorized_client"}"#, "unauthorized_client"),
            (400, #"{"error":"invalid_client"}"#, "invalid_client")
        ] as [(Int, String, String?)] {
            let transport = ScriptedTransport { _, _ in Reply.json(status, body) }
            var metadata = ProviderMetadata(issuer: Self.issuer)
            metadata.tokenEndpoint = Self.tokenURL.absoluteString
            let client = try TokenClient.testing(
                configuration: ClientConfiguration(issuer: Self.issuer, clientID: "d", authMethod: .privateKeyJWT),
                metadata: metadata, transport: transport, clientKey: MemoryKey(PEMFixtures.p256PKCS8),
                time: VirtualClock(), random: CountingRandom())
            do {
                _ = try await client.refresh(refreshToken: "rt")
                Issue.record("accepted \(status)")
            } catch {
                guard case .clientAuthenticationRefused(let refusal) = error else { Issue.record("got \(error)"); continue }
                #expect(
                    refusal
                        == ClientAuthenticationRefusal(
                            method: .privateKeyJWT, endpoint: .token, status: status,
                            error: expectedCode.map { .server(code: $0, description: nil, status: status) },
                            assertionAudience: .issuer))
                #expect(error.category == .protocolViolation)
                #expect(error.code == expectedCode ?? "invalid_client")
                #expect(error.message.contains("aud was the issuer identifier"), "\(error.message)")
            }
        }
        // A refresh token refused (Glewlwyd's empty 400) is not a client refusal: sign in again.
        let transport = ScriptedTransport { _, _ in Reply.json(400, "") }
        var metadata = ProviderMetadata(issuer: Self.issuer)
        metadata.tokenEndpoint = Self.tokenURL.absoluteString
        let client = try TokenClient.testing(
            configuration: ClientConfiguration(issuer: Self.issuer, clientID: "d", authMethod: .privateKeyJWT),
            metadata: metadata, transport: transport, clientKey: MemoryKey(PEMFixtures.p256PKCS8),
            time: VirtualClock(), random: CountingRandom())
        await #expect { _ = try await client.refresh(refreshToken: "rt") } throws: { error in
            guard case .reauthenticationRequired? = error as? LatchkeyError else { return false }
            return true
        }
    }

    @Test func theFactoryNeedsAKeyForPrivateKeyJWT() throws {
        let configuration = ClientConfiguration(
            issuer: Self.issuer, clientID: "d", authMethod: .privateKeyJWT,
            endpoints: EndpointOverrides())
        #expect { _ = try configuration.clientAuthenticator(secret: "s", key: nil) } throws: { error in
            guard case .configuration(.missingClientKey)? = error as? LatchkeyError else { return false }
            return true
        }
        #expect { _ = try ClientAuthMethod.privateKeyJWT.authenticator(clientID: "d", secret: nil) } throws: { error in
            guard case .configuration(.missingClientKey)? = error as? LatchkeyError else { return false }
            return true
        }
        var withSettings = configuration
        withSettings.clientAssertion = ClientAssertionSettings(keyID: "k", audience: .endpoint)
        let made = try #require(
            try withSettings.clientAuthenticator(secret: nil, key: MemoryKey(PEMFixtures.p256PKCS8))
                as? PrivateKeyJWTAuthentication)
        #expect(made.clientID == "d" && made.issuer == Self.issuer && made.settings == withSettings.clientAssertion)
    }
}

/// The key file's rules: read at each use with the token file's checks, never remembered.
@Suite struct ClientKeyFileTests {
    static func withFile(_ text: String, mode: mode_t, _ body: (String) throws -> Void) throws {
        let dir = try TemporaryDirectory(prefix: "latchkey-client-key-")
        defer { dir.remove() }
        let path = dir.path + "/client.pem"
        #expect(FileText.write(text, to: path, mode: mode))
        _ = chmod(path, mode)
        try body(path)
    }

    @Test func anOwnerOnlyFileIsReadAtEachUse() throws {
        try Self.withFile(PEMFixtures.p256PKCS8, mode: 0o600) { (path: String) throws -> Void in
            let file = ClientKeyFile(path: path)
            let first: SecretBytes = try file.privateKeyPEM()
            #expect(first.bytes == Array(PEMFixtures.p256PKCS8.utf8))
            // Replaced on disk (a rotated factory key): the next use reads the new one.
            #expect(FileText.write(PEMFixtures.p384PKCS8, to: path, mode: 0o600))
            let second: SecretBytes = try file.privateKeyPEM()
            #expect(second.bytes == Array(PEMFixtures.p384PKCS8.utf8))
        }
    }

    @Test(arguments: [0o640, 0o604, 0o644, 0o660] as [mode_t])
    func groupOrWorldAccessIsRefused(mode: mode_t) throws {
        try Self.withFile(PEMFixtures.p256PKCS8, mode: mode) { path in
            #expect { _ = try ClientKeyFile(path: path).privateKeyPEM() } throws: { error in
                guard case .clientKey(let key)? = error as? LatchkeyError, case .unreadable(path, .unsafePermissions) = key
                else { return false }
                // The message names the file and the mode, never the key.
                return key.description.contains(path) && !key.description.contains("PRIVATE KEY")
            }
        }
    }

    @Test func aMissingFileAndANonKeyAreLocalErrors() throws {
        #expect { _ = try ClientKeyFile(path: "/nonexistent/latchkey/client.pem").privateKeyPEM() } throws: { error in
            guard case .clientKey(.missing)? = error as? LatchkeyError else { return false }
            return (error as? LatchkeyError)?.category == .storage
        }
        try Self.withFile(PEMFixtures.p256PublicKey, mode: 0o600) { path in
            let auth = PrivateKeyJWTAuthentication(clientID: "d", issuer: "https://i.example", key: ClientKeyFile(path: path))
            #expect { _ = try auth.assertion(audience: "a", at: VirtualClock().now(), random: CountingRandom()) } throws: { error in
                guard case .clientKey(.refused(path, .unsupportedLabel))? = error as? LatchkeyError else { return false }
                return true
            }
        }
    }
}
