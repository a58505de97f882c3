import FoundationEssentials
import LatchkeyHTTP
import LatchkeyJOSE
import LatchkeyTesting
import Testing

@testable import Latchkey

@Suite struct DiscoveryTests {
    static func document(issuer: String, extra: String = "") -> String {
        #"{"issuer":"\#(issuer)","token_endpoint":"\#(issuer)/token","authorization_endpoint":"\#(issuer)/auth","jwks_uri":"\#(issuer)/jwks","id_token_signing_alg_values_supported":["RS256","ES256"]\#(extra)}"#
    }

    @Test func oidcDiscoveryReadsMetadata() async throws {
        let t = ScriptedTransport { r, _ in
            r.url.absoluteString == "https://idp.example/realms/x/.well-known/openid-configuration"
                ? Reply.json(
                    200,
                    Self.document(
                        issuer: "https://idp.example/realms/x",
                        extra:
                            #","device_authorization_endpoint":"https://idp.example/realms/x/device","code_challenge_methods_supported":["S256"],"authorization_response_iss_parameter_supported":true"#
                    ), headers: [("Cache-Control", "no-store")])
                : Reply.empty(404)
        }
        let m = try await ProviderDiscovery.discover(issuer: "https://idp.example/realms/x", transport: t)
        #expect(m.tokenEndpoint == "https://idp.example/realms/x/token")
        #expect(m.deviceAuthorizationEndpoint == "https://idp.example/realms/x/device")
        #expect(m.codeChallengeMethodsSupported == ["S256"])
        #expect(m.authorizationResponseIssParameterSupported == true)
        #expect(t.sent.count == 1)
        #expect(t.sent[0].request.maxRedirects == 3)
    }

    @Test func fallsBackToRFC8414WithPathInsertion() async throws {
        let t = ScriptedTransport { r, _ in
            r.url.absoluteString == "https://idp.example/.well-known/oauth-authorization-server/tenant1"
                ? Reply.json(200, Self.document(issuer: "https://idp.example/tenant1"))
                : Reply.empty(404)
        }
        let m = try await ProviderDiscovery.discover(issuer: "https://idp.example/tenant1", transport: t)
        #expect(m.issuer == "https://idp.example/tenant1")
        #expect(
            t.sent.map(\.request.url.absoluteString) == [
                "https://idp.example/tenant1/.well-known/openid-configuration",
                "https://idp.example/.well-known/oauth-authorization-server/tenant1"
            ])
    }

    @Test func issuerMismatchIsRefused() async {
        let t = ScriptedTransport { _, _ in Reply.json(200, Self.document(issuer: "https://evil.example")) }
        await expectError(category: .protocolViolation, code: "issuer_mismatch") {
            try await ProviderDiscovery.discover(issuer: "https://idp.example", transport: t)
        }
    }

    @Test func trailingSlashIssuerMustMatchExactly() async {
        let t = ScriptedTransport { _, _ in Reply.json(200, Self.document(issuer: "https://idp.example")) }
        await expectError(category: .protocolViolation, code: "issuer_mismatch") {
            try await ProviderDiscovery.discover(issuer: "https://idp.example/", transport: t)
        }
    }

    @Test func plainHTTPOnlyForLoopback() async throws {
        let t = ScriptedTransport { _, _ in Reply.json(200, Self.document(issuer: "http://127.0.0.1:8080/api/oidc")) }
        let m = try await ProviderDiscovery.discover(issuer: "http://127.0.0.1:8080/api/oidc", transport: t)
        #expect(m.tokenEndpoint == "http://127.0.0.1:8080/api/oidc/token")
        await expectError(category: .configuration) { try await ProviderDiscovery.discover(issuer: "http://idp.example", transport: t) }
    }

    @Test func insecureEndpointInMetadataIsRefused() async {
        let t = ScriptedTransport { _, _ in
            Reply.json(200, #"{"issuer":"https://idp.example","token_endpoint":"http://idp.example/token"}"#)
        }
        await expectError(category: .protocolViolation) {
            try await ProviderDiscovery.discover(issuer: "https://idp.example", transport: t)
        }
    }

    @Test func djangoMetadataLacksDeviceAndRevocationSoOverridesFillThem() async throws {
        let t = ScriptedTransport { _, _ in Reply.json(200, Self.document(issuer: "https://idp.example/o")) }
        let overrides = EndpointOverrides(
            deviceAuthorization: "https://idp.example/o/device-authorization/",
            revocation: "https://idp.example/o/revoke_token/")
        let m = try await ProviderDiscovery.discover(issuer: "https://idp.example/o", transport: t, overrides: overrides)
        #expect(m.deviceAuthorizationEndpoint == "https://idp.example/o/device-authorization/")
        #expect(m.revocationEndpoint == "https://idp.example/o/revoke_token/")
        #expect(m.tokenEndpoint == "https://idp.example/o/token")
    }

    @Test func glewlwydListsDoNotRefuseAnything() throws {
        let object = try JSONParserShim.object(
            Self.document(
                issuer: "https://idp.example",
                extra: #","grant_types_supported":["authorization_code"],"token_endpoint_auth_methods_supported":["client_secret_basic"]"#))
        let m = try ProviderDiscovery.parse(object, expectedIssuer: "https://idp.example")
        #expect(m.grantTypesSupported == ["authorization_code"])
    }

    @Test func networkErrorIsExitSix() async {
        let t = ScriptedTransport { _, _ in throw HTTPError.dnsFailure(host: "idp.example") }
        await expectError(category: .network) { try await ProviderDiscovery.discover(issuer: "https://idp.example", transport: t) }
    }

    @Test func nothingFoundIsAProtocolError() async {
        let t = ScriptedTransport { _, _ in Reply.empty(404) }
        await expectError(category: .protocolViolation) {
            try await ProviderDiscovery.discover(issuer: "https://idp.example", transport: t)
        }
    }
}

enum JSONParserShim {
    static func object(_ text: String) throws -> JSONObject { try JSONParser().parseObject(Array(text.utf8)) }
}

/// The provider's whole document is kept beside the metadata latchkey uses (for `discover`):
/// every member in the provider's order, the validated ones as validated.
@Suite struct DiscoveryDocumentTests {
    static let issuer = "https://idp.example/openid"

    @Test func everyMemberIsKeptInOrderWithTheValidatedOnesAsValidated() async throws {
        let body = #"""
            {"issuer":"https://idp.example/openid","authorization_endpoint":"https://idp.example/openid/authorize",
             "token_endpoint":"https://idp.example/openid/token","end_session_endpoint":"https://idp.example/openid/logout",
             "response_types_supported":["code","id_token"],"subject_types_supported":["public"],
             "scopes_supported":["openid",5,"profile"],"userinfo_endpoint":7,
             "claims_supported":{"nested":[1,2,{"a":null}]},"request_parameter_supported":false}
            """#
        let t = ScriptedTransport { r, _ in
            r.url.absoluteString.hasSuffix("/.well-known/openid-configuration") ? Reply.json(200, body) : Reply.empty(404)
        }
        let found = try await ProviderDiscovery.discoverDocument(issuer: Self.issuer, transport: t)
        let sent = try JSONParserShim.object(body)
        #expect(found.document == sent)
        #expect(found.metadata.tokenEndpoint == "https://idp.example/openid/token")
        #expect(found.metadata.scopesSupported == ["openid", "profile"])
        let printed = found.validatedDocument
        // A member latchkey reads but could not use (userinfo_endpoint is not a string) is left out.
        #expect(
            printed.keys == [
                "issuer", "authorization_endpoint", "token_endpoint", "end_session_endpoint",
                "response_types_supported", "subject_types_supported", "scopes_supported",
                "claims_supported", "request_parameter_supported"
            ])
        #expect(printed["end_session_endpoint"] == "https://idp.example/openid/logout")
        #expect(printed["response_types_supported"] == sent["response_types_supported"])
        #expect(printed["subject_types_supported"] == .array([.string("public")]))
        #expect(printed["scopes_supported"] == .array([.string("openid"), .string("profile")]))
        #expect(printed["claims_supported"] == sent["claims_supported"])
        #expect(printed["request_parameter_supported"] == .bool(false))
        // discover() is the same metadata.
        #expect(try await ProviderDiscovery.discover(issuer: Self.issuer, transport: t) == found.metadata)
    }

    @Test func overridesAppearAsValidatedMembers() async throws {
        let t = ScriptedTransport { _, _ in
            Reply.json(
                200,
                DiscoveryTests.document(issuer: "https://idp.example/o", extra: #","end_session_endpoint":"https://idp.example/o/logout""#))
        }
        let overrides = EndpointOverrides(deviceAuthorization: "https://idp.example/o/device/")
        let found = try await ProviderDiscovery.discoverDocument(issuer: "https://idp.example/o", transport: t, overrides: overrides)
        #expect(found.validatedDocument["device_authorization_endpoint"] == "https://idp.example/o/device/")
        #expect(found.validatedDocument["end_session_endpoint"] == "https://idp.example/o/logout")
        #expect(found.document["device_authorization_endpoint"] == nil)
    }

    @Test func overridesAloneHaveAnEmptyDocument() async throws {
        let t = ScriptedTransport { _, _ in Reply.empty(404) }
        let found = try await ProviderDiscovery.discoverDocument(
            issuer: "https://idp.example", transport: t,
            overrides: EndpointOverrides(token: "https://idp.example/token"))
        #expect(found.document.count == 0)
        #expect(found.validatedDocument.keys == ["issuer", "token_endpoint"])
    }
}
