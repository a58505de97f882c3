import FoundationEssentials
import LatchkeyCrypto
import LatchkeyHTTP
import LatchkeyJOSE
import Testing

@testable import Latchkey
@testable import LatchkeyRegistration

/// One codec per concept (issue 13): every member of each document type is written and read back.
/// The member tables are enumerated, so a member added to a table and forgotten by the reader (or
/// the writer) fails here instead of being silently dropped.
@Suite struct CodecRoundTripTests {
    /// Metadata with every modelled member set to a distinct value.
    static func fullMetadata() -> ProviderMetadata {
        var m = ProviderMetadata(issuer: "https://idp.example")
        for (i, name) in ProviderMetadata.stringMembers.enumerated() { m.setString(name, "https://idp.example/\(i)") }
        for (i, name) in ProviderMetadata.listMembers.enumerated() { m.setList(name, ["v\(i)", "w\(i)"]) }
        for name in ProviderMetadata.flagMembers { m.setFlag(name, true) }
        var aliases = MTLSEndpointAliases()
        for (i, name) in MTLSEndpointAliases.members.enumerated() { aliases.setMember(name, "https://mtls.idp.example/\(i)") }
        m.mtlsEndpointAliases = aliases
        return m
    }

    @Test func providerMetadataRoundTripsEveryMember() throws {
        let m = Self.fullMetadata()
        let json = m.json
        #expect(json.keys == ProviderMetadata.memberNames, "every member is written, in table order")
        let text = JSONValue.object(json).jsonText
        let back = try ProviderMetadata(json: try JSONParser().parseObject(Array(text.utf8)))
        #expect(back == m)
        // Each member on its own: set it alone and it survives alone.
        for name in ProviderMetadata.stringMembers {
            var one = ProviderMetadata(issuer: "https://i")
            one.setString(name, "https://i/x")
            #expect(one.string(name) == "https://i/x", "\(name) has an accessor")
            #expect(try ProviderMetadata(json: one.json) == one, "\(name)")
        }
        // Every stored property is reached by some member: none is left unset by the tables.
        for child in Mirror(reflecting: m).children {
            #expect(!"\(child.value)".hasPrefix("nil"), "\(child.label ?? "?") is in no member table")
        }
        for child in Mirror(reflecting: m.mtlsEndpointAliases!).children {
            #expect(!"\(child.value)".hasPrefix("nil"), "mtls alias \(child.label ?? "?") is in no member table")
        }
    }

    @Test func providerMetadataIsStrictForOurFilesAndLenientForProviders() throws {
        let doc = try JSONParser().parseObject(Array(#"{"issuer":"https://i","jwks_uri":7,"scopes_supported":["a",1]}"#.utf8))
        #expect(throws: DocumentError.wrongType(member: "jwks_uri", expected: "a string")) { try ProviderMetadata(json: doc) }
        let lenient = try ProviderMetadata(json: doc, lenient: true)
        #expect(lenient.jwksURI == nil && lenient.scopesSupported == ["a"])
    }

    @Test func clientConfigurationRoundTripsEveryMember() throws {
        var c = ClientConfiguration(
            issuer: "https://idp.example", clientID: "device", scopes: ["openid", "x"],
            authMethod: .clientSecretBasic, redirectURI: "http://127.0.0.1:9/cb", pkce: .never,
            allowedAlgorithms: ["ES256"], leeway: 12.5,
            quirks: ProviderQuirks(entraTenantIssuer: true), dpop: .always)
        for (i, name) in EndpointOverrides.members.enumerated() { c.endpoints.setMember(name, "https://idp.example/e\(i)") }
        c.par = .always
        c.resources = ["https://api.example/a", "urn:example:b"]
        c.extraParameters = [
            RequestParameter.usable(name: "audience", value: "https://api.example")!,
            RequestParameter.usable(name: "prompt", value: "consent")!
        ]
        c.clientAssertion = ClientAssertionSettings(algorithm: .ps256, keyID: "kid-1", type: .jwt, audience: .endpoint)
        let text = JSONValue.object(c.json).jsonText
        let back = try ClientConfiguration(json: try JSONParser().parseObject(Array(text.utf8)))
        #expect(back == c)
        // The quirk is written (the old CLI serialiser dropped it, so Entra could not be enabled).
        #expect(c.json["quirks"]?["entra_tenant_issuer"] == .bool(true))
        // Mirror-enumerate the stored properties: each one must be a member of the written document.
        let written = Set(c.json.keys)
        let names: [String: String] = [
            "issuer": "issuer", "clientID": "client_id", "scopes": "scopes",
            "authMethod": "auth_method", "redirectURI": "redirect_uri", "pkce": "pkce",
            "endpoints": "endpoints", "allowedAlgorithms": "allowed_algorithms",
            "leeway": "leeway", "quirks": "quirks", "dpop": "dpop", "par": "par",
            "resources": "resources", "extraParameters": "parameters",
            "clientAssertion": "client_assertion"
        ]
        for child in Mirror(reflecting: c).children {
            let label = try #require(child.label)
            let member = try #require(names[label], "ClientConfiguration.\(label) has no JSON member: add it to the codec")
            #expect(written.contains(member), "\(label) is not written")
        }
    }

    @Test func storedSessionRoundTripsEveryMember() throws {
        var session = StoredSession(
            profile: "p", issuer: "https://idp.example", clientID: "c",
            token: Token(
                accessToken: "at", tokenType: "Bearer", refreshToken: "rt",
                expiresAt: Timestamp(timeIntervalSince1970: 1_796_120_420.5), scope: "openid", idToken: "h.p.s"),
            subject: "sub", idTokenClaimsJSON: #"{"sub":"sub"}"#, metadata: Self.fullMetadata(),
            createdAt: Timestamp(timeIntervalSince1970: 1_796_000_000), updatedAt: Timestamp(timeIntervalSince1970: 1_796_000_001.25),
            dpop: DPoPBinding(
                privateScalar: SecretBytes(Array(1...32)), nonces: ["https://idp.example": "n-1", "https://api.example": "n-2"]))
        session.grant = .clientCredentials
        session.registration =
            RegistrationRecord(
                dialect: .rfc7591, registration: ClientRegistration(clientID: "c"),
                keyFile: nil, keyGenerated: false
            ).json
        session.exchanges.insert(
            ExchangedToken(
                token: "x.y.z", issuedTokenType: TokenExchange.accessTokenType, tokenType: "Bearer",
                expiresAt: Timestamp(timeIntervalSince1970: 1_796_003_600), scope: "read", audience: ["api"]),
            for: ExchangeCacheKey(audiences: ["api"], resources: ["https://api.example/"], scope: "read", requestedType: "jwt"),
            at: Timestamp(timeIntervalSince1970: 1_796_000_001))
        let back = try StoredSessionPayload.decode(StoredSessionPayload.encode(session))
        #expect(back == session)
        #expect(back.dpop?.privateScalar.bytes == Array(1...32))
        // A file written before DPoP (no `dpop` member) opens as an unbound session.
        var old = session
        old.dpop = nil
        let oldBytes = StoredSessionPayload.encode(old)
        #expect(try JSONParser().parseObject(oldBytes)["dpop"] == nil)
        #expect(try StoredSessionPayload.decode(oldBytes).dpop == nil)
        // A stored scalar of the wrong size is refused, not half-used.
        var text = String(decoding: StoredSessionPayload.encode(session), as: UTF8.self)
        text = text.replacing(Base64URL.encode(Array(UInt8(1)...32)), with: "AAAA")
        #expect(throws: (any Error).self) { try StoredSessionPayload.decode(Array(text.utf8)) }
        for label in Mirror(reflecting: session).children.compactMap(\.label)
            + Mirror(reflecting: session.token).children.compactMap(\.label)
        {
            // Every stored property is written under its own name (the names wave 1 used).
            let object = try JSONParser().parseObject(StoredSessionPayload.encode(session))
            let present = object[label] != nil || object["token"]?[label] != nil
            #expect(present, "\(label) is not written to the token file")
        }
    }

    /// The payload a wave-1 release wrote with JSONEncoder (same member names, seconds since 1970,
    /// nil members left out, `\/` escapes) still reads.
    @Test func aWaveOnePayloadStillOpens() throws {
        let old =
            #"{"profile":"default","issuer":"https:\/\/idp.example","clientID":"c","token":{"accessToken":"at","tokenType":"Bearer","expiresAt":1796120420},"metadata":{"issuer":"https:\/\/idp.example","token_endpoint":"https:\/\/idp.example\/token"},"createdAt":1796000000.5,"updatedAt":1796000000.5}"#
        let s = try StoredSessionPayload.decode(Array(old.utf8))
        #expect(s.metadata.tokenEndpoint == "https://idp.example/token")
        #expect(s.token.expiresAt == Timestamp(timeIntervalSince1970: 1_796_120_420))
        #expect(s.token.refreshToken == nil && s.subject == nil)
        #expect(s.createdAt.timeIntervalSince1970 == 1_796_000_000.5)
    }
}
