import LatchkeyCrypto
import LatchkeyHTTP
import LatchkeyJOSE
import LatchkeyTestSupport
import Testing

@testable import Latchkey
@testable import LatchkeyRegistration

/// The RFC 7591 metadata codec, the dialects as data, the registration record in the token-file
/// payload, and the keys a device makes for itself.
@Suite struct RegistrationCodecTests {
    static func full() -> ClientMetadata {
        var m = ClientMetadata()
        m.clientName = "latchkey on kiosk-1"
        m.redirectURIs = ["http://127.0.0.1:53682/callback"]
        m.grantTypes = [RegistrationDialect.deviceGrantURN, "authorization_code", "refresh_token"]
        m.responseTypes = ["code"]
        m.tokenEndpointAuthMethod = "private_key_jwt"
        m.tokenEndpointAuthSigningAlg = "ES256"
        m.jwks = JSONObject([("keys", .array([.object(JSONObject([("kty", "EC"), ("kid", "k1")]))]))])
        m.jwksURI = "https://kiosk.example/jwks"
        m.scope = "openid offline_access"
        m.softwareStatement = "eyJhbGciOiJub25lIn0.e30."
        m.otherMembers = JSONObject([("logo_uri", "https://kiosk.example/logo.png"), ("extension_parameter", .integer(3))])
        return m
    }

    @Test(arguments: RegistrationDialect.all.map(\.name))
    func everyMemberRoundTrips(dialect name: String) throws {
        let dialect = try #require(RegistrationDialect.named(name))
        let m = Self.full()
        #expect(try ClientMetadata(json: m.json(in: dialect), dialect: dialect) == m)
    }

    @Test func theRFCDialectSpeaksTheRFC() {
        let o = Self.full().json(in: .rfc7591)
        #expect(o["grant_types"] == .array([.string(RegistrationDialect.deviceGrantURN), "authorization_code", "refresh_token"]))
        #expect(o["token_endpoint_auth_signing_alg"] == "ES256" && o["token_endpoint_signing_alg"] == nil)
        #expect(o["client_confidential"] == nil)
        #expect(RegistrationDialect.rfc7591.createStatuses == [201] && RegistrationDialect.rfc7591.deleteStatuses == [204])
    }

    @Test func theGlewlwydDialectSpeaksGlewlwyd() {
        var m = Self.full()
        let o = m.json(in: .glewlwyd)
        #expect(o["grant_types"] == .array(["device_authorization", "authorization_code", "refresh_token", "delete_token"]))
        #expect(o["token_endpoint_signing_alg"] == "ES256" && o["token_endpoint_auth_signing_alg"] == nil)
        #expect(o["client_confidential"] == .bool(true))
        m.tokenEndpointAuthMethod = "none"
        #expect(m.json(in: .glewlwyd)["client_confidential"] == .bool(false), "a public client says so")
        #expect(RegistrationDialect.glewlwyd.createStatuses.contains(200) && RegistrationDialect.glewlwyd.deleteStatuses.contains(200))
    }

    @Test func glewlwydsGetAnswerReads() throws {
        let text =
            #"{"client_id":"c","token_endpoint_auth_method":["private_key_jwt"],"grant_types":["authorization_code","device_authorization","refresh_token","delete_token"],"client_confidential":true,"registration_access_token":"secret"}"#
        let m = try ClientMetadata(json: try JSONParser().parseObject(Array(text.utf8)), dialect: .glewlwyd)
        #expect(m.tokenEndpointAuthMethod == "private_key_jwt")
        #expect(m.grantTypes == ["authorization_code", RegistrationDialect.deviceGrantURN, "refresh_token"])
        #expect(m.otherMembers.count == 0, "credentials and markers are not metadata: \(m.otherMembers)")
    }

    @Test func aWrongTypeNamesTheMember() {
        #expect(throws: DocumentError.wrongType(member: "grant_types", expected: "an array of strings")) {
            _ = try ClientMetadata(json: JSONObject([("grant_types", "refresh_token")]), dialect: .rfc7591)
        }
    }

    @Test func theRecordRoundTripsInThePayloadAndOldFilesStillRead() throws {
        let registration = ClientRegistration(
            clientID: "dyn-1", clientSecret: "s3cret", registrationAccessToken: "rat",
            registrationClientURI: "https://idp.example/register/dyn-1", metadata: Self.full())
        var record = RegistrationRecord(dialect: .glewlwyd, registration: registration, keyFile: "/state/keys/k.pem", keyGenerated: true)
        record.deleting = true
        var session = StoredSession(
            profile: "k.registration", issuer: "https://idp.example", clientID: "dyn-1",
            token: Token(accessToken: "", tokenType: "registration"),
            metadata: ProviderMetadata(issuer: "https://idp.example"),
            createdAt: Timestamp(timeIntervalSince1970: 1), updatedAt: Timestamp(timeIntervalSince1970: 2))
        let old = StoredSessionPayload.encode(session)
        #expect(try StoredSessionPayload.decode(old).registration == nil)
        session.registration = record.json
        #expect(try StoredSessionPayload.decode(StoredSessionPayload.encode(session)) == session)
    }

    @Test(arguments: [JWSAlgorithm.es256, .ps256])
    func generatedKeysCarryTheirThumbprintAsKid(alg: JWSAlgorithm) throws {
        let random = try SecureRandom()
        let key = try ClientKey.generate(alg, random: random)
        #expect(key.algorithm == alg)
        let jwk = try JWK(json: key.publicJWK)
        #expect(jwk.kid == key.thumbprint && jwk.thumbprint() == key.thumbprint)
        #expect(key.publicJWK["d"] == nil && key.publicJWK["p"] == nil && key.publicJWK["alg"] == .string(alg.rawValue))
        let signing = try SigningKey(pem: key.pem, random: random)
        #expect(JWK(publicKey: signing.publicKey).thumbprint() == key.thumbprint, "the PEM is the key the JWK describes")
        if case .rsa(let rsa) = signing.publicKey { #expect(rsa.modulusBitCount == 2048) }
        let other = try ClientKey.generate(alg, random: random)
        #expect(other.thumbprint != key.thumbprint)
    }

    @Test func anEchoedKeySetMustHoldTheKeysSent() throws {
        let random = try SecureRandom()
        let a = try ClientKey.generate(.es256, random: random), b = try ClientKey.generate(.es256, random: random)
        try RegistrationClient.checkKeys(sent: ClientKey.keySet([a.publicJWK]), echoed: ClientKey.keySet([a.publicJWK]))
        try RegistrationClient.checkKeys(sent: ClientKey.keySet([a.publicJWK]), echoed: nil)
        #expect(throws: RegistrationError.self) {
            try RegistrationClient.checkKeys(sent: ClientKey.keySet([a.publicJWK]), echoed: ClientKey.keySet([b.publicJWK]))
        }
    }

    @Test func aManagementURIOffTheIssuersOriginIsRefused() throws {
        let client = RegistrationClient(
            issuer: "https://idp.example/realm", dialect: .rfc7591,
            transport: ScriptedNothing())
        try client.checkOrigin("https://idp.example/register/x")
        for uri in [
            "https://evil.example/register/x", "https://idp.example:8443/register/x", "http://idp.example/register/x",
            "https://idp.example.evil.test/register/x"
        ] {
            #expect(throws: RegistrationError.foreignManagementURI(uri: uri, issuer: "https://idp.example/realm")) {
                try client.checkOrigin(uri)
            }
        }
    }

    /// The FuzzClientMetadata seeds keep the fuzzer's promise: read in each dialect, written back, read again, unchanged.
    @Test(arguments: ["rfc7591-request.json", "glewlwyd-get.json", "rfc7591-answer.json"])
    func fuzzSeedsRoundTrip(seed: String) throws {
        let text = try #require(FileText.read(PackagePaths.root() + "/Tests/FuzzCorpus/clientmetadata/" + seed))
        let object = try JSONParser().parseObject(Array(text.utf8))
        for dialect in RegistrationDialect.all {
            let m = try ClientMetadata(json: object, dialect: dialect)
            #expect(try ClientMetadata(json: m.json(in: dialect), dialect: dialect) == m, "\(seed) in \(dialect.name)")
            #expect(m.otherMembers["client_secret"] == nil && m.otherMembers["registration_access_token"] == nil)
        }
    }

    @Test func serverTextIsSanitised() {
        #expect(RegistrationClient.sanitised("bad\u{1B}[31m\nthing\u{7F}é", limit: 200) == "bad[31mthing")
    }
}

/// A transport that is never reached.
struct ScriptedNothing: HTTPTransport {
    func send(_ request: HTTPRequest) async throws -> HTTPResponse { throw HTTPError.cancelled }
}
