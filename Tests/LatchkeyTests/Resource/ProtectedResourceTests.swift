import LatchkeyHTTP
import LatchkeyJOSE
import LatchkeyTesting
import Testing

@testable import Latchkey

/// RFC 9728 metadata, its discovery and the `resource` check; RFC 9470 challenges.
@Suite struct ProtectedResourceTests {
    static let api = HTTPURL(string: "http://127.0.0.1:8800/api/tools?x=1")!

    static func json(_ text: String, _ url: HTTPURL, status: Int = 200) -> HTTPResponse {
        HTTPResponse(status: status, headers: [("Content-Type", "application/json")], body: Array(text.utf8), url: url)
    }

    static func object(_ text: String) throws -> JSONObject { try JSONParser().parseObject(Array(text.utf8)) }

    // MARK: the identifier and the well-known location

    @Test func identifierIsSchemeHostPortAndPath() {
        #expect(ResourceIdentifier(Self.api).description == "http://127.0.0.1:8800/api/tools")
        #expect(ResourceIdentifier(HTTPURL(string: "https://api.example:443")!).description == "https://api.example/")
        #expect(ResourceIdentifier(named: "https://api.example/x?q=1") == nil, "a resource has no query")
        #expect(ResourceIdentifier(named: "https://api.example/x#f") == nil, "nor a fragment")
        #expect(ResourceIdentifier(named: "http://api.example/x") == nil, "http only to loopback")
    }

    @Test func wellKnownURLInsertsThePath() {
        #expect(
            ResourceIdentifier(Self.api).wellKnownURL()?.absoluteString
                == "http://127.0.0.1:8800/.well-known/oauth-protected-resource/api/tools")
        #expect(
            ResourceIdentifier(HTTPURL(string: "https://api.example/")!).wellKnownURL()?.absoluteString
                == "https://api.example/.well-known/oauth-protected-resource")
    }

    @Test func coverageStopsAtSlashBoundaries() {
        let url = ResourceIdentifier(HTTPURL(string: "https://api.example/api/tools")!)
        #expect(ResourceIdentifier(named: "https://api.example/api")!.covers(url))
        #expect(ResourceIdentifier(named: "https://api.example/api/")!.covers(url))
        #expect(ResourceIdentifier(named: "https://api.example/")!.covers(url))
        #expect(ResourceIdentifier(named: "https://api.example/api/tools")!.covers(url))
        #expect(!ResourceIdentifier(named: "https://api.example/ap")!.covers(url))
        #expect(!ResourceIdentifier(named: "https://api.example/api/tools/x")!.covers(url))
        #expect(!ResourceIdentifier(named: "https://other.example/api")!.covers(url))
        #expect(!ResourceIdentifier(named: "https://api.example:8443/api")!.covers(url))
    }

    // MARK: the document

    @Test func readsTheMCPSDKDocument() throws {
        let m = try ProtectedResourceMetadata(
            json: Self.object(
                #"{"resource":"http://127.0.0.1:8800/api","authorization_servers":["http://127.0.0.1:4593/"],"#
                    + #""scopes_supported":["openid","g_profile"],"bearer_methods_supported":["header"],"resource_name":"Test API","x":{}}"#
            ))
        #expect(m.authorizationServers == ["http://127.0.0.1:4593/"])
        #expect(m.scopesSupported == ["openid", "g_profile"])
        #expect(m.resourceName == "Test API")
        #expect(m.authorizationServer() == .chosen("http://127.0.0.1:4593/"))
    }

    @Test func refusesMalformedDocuments() throws {
        let cases: [(String, DocumentError)] = [
            (#"{}"#, .missing(member: "resource")),
            (#"{"resource":7}"#, .wrongType(member: "resource", expected: "a string")),
            (
                #"{"resource":"https://api.example/x?q"}"#,
                .invalid(member: "resource", reason: "not an https URL without query or fragment")
            ),
            (
                #"{"resource":"https://api.example/","authorization_servers":"https://as"}"#,
                .wrongType(member: "authorization_servers", expected: "an array of strings")
            ),
            (
                #"{"resource":"https://api.example/","authorization_servers":[""]}"#,
                .invalid(member: "authorization_servers", reason: "an empty issuer")
            ),
            (
                #"{"resource":"https://api.example/","dpop_bound_access_tokens_required":"yes"}"#,
                .wrongType(member: "dpop_bound_access_tokens_required", expected: "true or false")
            )
        ]
        for (text, expected) in cases {
            #expect(throws: expected, "\(text)") { _ = try ProtectedResourceMetadata(json: Self.object(text)) }
        }
        let many = "[" + (0...ProtectedResourceMetadata.maxListCount).map { "\"s\($0)\"" }.joined(separator: ",") + "]"
        #expect(throws: DocumentError.self) {
            _ = try ProtectedResourceMetadata(json: Self.object(#"{"resource":"https://api.example/","scopes_supported":"# + many + "}"))
        }
    }

    @Test func severalAuthorizationServersAreNeverChosenAlone() {
        let m = ProtectedResourceMetadata(
            resource: "https://api.example/", authorizationServers: ["https://a.example/", "https://b.example"])
        #expect(m.authorizationServer() == .several(["https://a.example/", "https://b.example"]))
        #expect(m.authorizationServer(preferring: "https://a.example") == .chosen("https://a.example/"))
        #expect(m.authorizationServer(preferring: "https://b.example/") == .chosen("https://b.example"))
        #expect(m.authorizationServer(preferring: "https://c.example") == .notNamed("https://c.example", named: m.authorizationServers))
        #expect(ProtectedResourceMetadata(resource: "https://api.example/").authorizationServer() == .none)
    }

    // MARK: discovery

    @Test func wellKnownMetadataMustNameTheResourceExactly() async throws {
        let good = ScriptedTransport { r, _ in
            Self.json(#"{"resource":"http://127.0.0.1:8800/api/tools","authorization_servers":["http://127.0.0.1:1/"]}"#, r.url)
        }
        let m = try await ProtectedResourceDiscovery.wellKnownMetadata(for: Self.api, transport: good)
        #expect(m?.resource == "http://127.0.0.1:8800/api/tools")
        #expect(good.sent[0].request.url.absoluteString == "http://127.0.0.1:8800/.well-known/oauth-protected-resource/api/tools")
        #expect(good.sent[0].request.maxRedirects == 0, "metadata is read where it is, never after a redirect")
        #expect(good.sent[0].header("Authorization") == nil)

        let prefix = ScriptedTransport { r, _ in Self.json(#"{"resource":"http://127.0.0.1:8800/api"}"#, r.url) }
        await #expect(throws: LatchkeyError.self) {
            _ = try await ProtectedResourceDiscovery.wellKnownMetadata(for: Self.api, transport: prefix)
        }
        do {
            _ = try await ProtectedResourceDiscovery.wellKnownMetadata(for: Self.api, transport: prefix)
        } catch {
            guard case .resourceMetadata(.resourceMismatch(let expected, let got)) = error else { Issue.record("\(error)"); return }
            #expect(expected == "http://127.0.0.1:8800/api/tools")
            #expect(got == "http://127.0.0.1:8800/api")
            #expect(error.category == .protocolViolation)
        }
        let none = ScriptedTransport { r, _ in HTTPResponse(status: 404, url: r.url) }
        #expect(try await ProtectedResourceDiscovery.wellKnownMetadata(for: Self.api, transport: none) == nil)
    }

    @Test func challengedMetadataOnAnotherOriginIsNeverFetched() async throws {
        let base = ScriptedTransport { r, _ in Self.json(#"{"resource":"http://127.0.0.1:8800/api"}"#, r.url) }
        for location in ["http://127.0.0.1:9999/.well-known/oauth-protected-resource", "https://evil.example/m"] {
            do {
                _ = try await ProtectedResourceDiscovery.challengedMetadata(location, for: Self.api, transport: base)
                Issue.record("accepted \(location)")
            } catch {
                guard case .resourceMetadata(.otherOrigin(_, let origin)) = error else { Issue.record("\(error)"); continue }
                #expect(origin == "http://127.0.0.1:8800")
            }
        }
        do {
            _ = try await ProtectedResourceDiscovery.challengedMetadata("http://evil.example/m", for: Self.api, transport: base)
            Issue.record("accepted plain http")
        } catch {
            guard case .resourceMetadata(.unusableURL) = error else { Issue.record("\(error)"); return }
        }
        #expect(base.sent.isEmpty, "no request to another origin")
    }

    @Test func challengedMetadataMustCoverTheURL() async throws {
        let location = "http://127.0.0.1:8800/.well-known/oauth-protected-resource/api"
        let ok = ScriptedTransport { r, _ in
            Self.json(#"{"resource":"http://127.0.0.1:8800/api","authorization_servers":["http://127.0.0.1:1/"]}"#, r.url)
        }
        let m = try await ProtectedResourceDiscovery.challengedMetadata(location, for: Self.api, transport: ok)
        #expect(m.resource == "http://127.0.0.1:8800/api")
        for resource in ["http://127.0.0.1:8800/apix", "http://127.0.0.1:8801/api", "http://127.0.0.1:8800/api/tools/deeper"] {
            let other = ScriptedTransport { r, _ in Self.json(#"{"resource":""# + resource + #""}"#, r.url) }
            do {
                _ = try await ProtectedResourceDiscovery.challengedMetadata(location, for: Self.api, transport: other)
                Issue.record("accepted \(resource)")
            } catch {
                guard case .resourceMetadata(.resourceMismatch) = error else { Issue.record("\(error)"); continue }
            }
        }
    }

    @Test func oversizedOrBrokenMetadataIsRefused() async throws {
        let location = "http://127.0.0.1:8800/m"
        let big = String(repeating: " ", count: ProtectedResourceDiscovery.maxDocumentBytes) + #"{"resource":"http://127.0.0.1:8800/"}"#
        let answers: [(HTTPResponse.Type, @Sendable (HTTPURL) -> HTTPResponse, (ResourceMetadataProblem) -> Bool)] = [
            (
                HTTPResponse.self, { Self.json(big, $0) },
                {
                    if case .tooLarge = $0 { return true }; return false
                }
            ),
            (
                HTTPResponse.self, { Self.json("[1]", $0) },
                {
                    if case .notJSON = $0 { return true }; return false
                }
            ),
            (
                HTTPResponse.self, { Self.json("{}", $0, status: 302) },
                {
                    if case .status(_, 302) = $0 { return true }; return false
                }
            ),
            (
                HTTPResponse.self, { Self.json(#"{"resource":1}"#, $0) },
                {
                    if case .document = $0 { return true }; return false
                }
            )
        ]
        for (_, answer, matches) in answers {
            let t = ScriptedTransport { r, _ in answer(r.url) }
            do {
                _ = try await ProtectedResourceDiscovery.challengedMetadata(location, for: Self.api, transport: t)
                Issue.record("accepted")
            } catch {
                guard case .resourceMetadata(let p) = error else { Issue.record("\(error)"); continue }
                #expect(matches(p), "\(p)")
            }
        }
    }

    @Test func issuerSpelledWithATrailingSlashIsFoundExactly() async throws {
        let issuer = "http://127.0.0.1:4593/api/oidc"
        let t = ScriptedTransport { r, _ in
            Self.json(#"{"issuer":""# + issuer + #"","token_endpoint":""# + issuer + #"/token"}"#, r.url)
        }
        #expect(try await ProtectedResourceDiscovery.issuer(named: issuer + "/", transport: t) == issuer)
        #expect(try await ProtectedResourceDiscovery.issuer(named: issuer, transport: t) == issuer)
        do {
            _ = try await ProtectedResourceDiscovery.issuer(named: "http://127.0.0.1:4593/other/", transport: t)
            Issue.record("another issuer accepted")
        } catch {
            guard case .issuerMismatch = error else { Issue.record("\(error)"); return }
        }
    }

    // MARK: challenges

    @Test func readsResourceMetadataAndStepUp() throws {
        let mcp = ResourceChallenge(
            wwwAuthenticate:
                #"Bearer error="invalid_token", error_description="Authentication required", resource_metadata="http://127.0.0.1:8800/.well-known/oauth-protected-resource/api""#
        )
        #expect(mcp?.error == "invalid_token")
        #expect(mcp?.resourceMetadata == "http://127.0.0.1:8800/.well-known/oauth-protected-resource/api")
        #expect(mcp?.stepUp == nil)

        let stepUp = ResourceChallenge(
            wwwAuthenticate:
                #"Basic realm="x", Bearer error="insufficient_user_authentication", error_description="more", acr_values="mfa  hwk", max_age=300"#
        )
        #expect(stepUp?.stepUp == StepUpRequirement(acrValues: ["mfa", "hwk"], maxAge: 300))
        #expect(stepUp?.stepUp?.authentication.parameters.map { "\($0.0)=\($0.1)" } == ["acr_values=mfa hwk", "max_age=300"])

        let onlyAge = ResourceChallenge(wwwAuthenticate: #"DPoP algs="ES256", error="insufficient_user_authentication", max_age="0""#)
        #expect(onlyAge?.stepUp == StepUpRequirement(acrValues: nil, maxAge: 0))

        for bad in ["-1", "1e3", "99999999999", "", " 5", "31536001"] {
            let c = ResourceChallenge(wwwAuthenticate: #"Bearer error="insufficient_user_authentication", max_age=""# + bad + #"""#)
            #expect(c?.stepUp?.maxAge == nil, "\(bad)")
        }
        let controls = ResourceChallenge(wwwAuthenticate: "Bearer error=\"insufficient_user_authentication\", acr_values=\"a\u{7F}b\"")
        #expect(controls?.stepUp?.acrValues == nil)
        #expect(ResourceChallenge(wwwAuthenticate: #"Basic realm="x""#) == nil)
        #expect(ResourceChallenge(wwwAuthenticate: nil) == nil)
    }

    @Test func authorizedTransportHandsTheStepUpChallengeBack() async throws {
        let header = #"Bearer error="insufficient_user_authentication", acr_values="mfa", max_age=60"#
        let base = ScriptedTransport { r, _ in HTTPResponse(status: 401, headers: [("WWW-Authenticate", header)], url: r.url) }
        let source = AuthorizedTransportTests.Source()
        let response = try await AuthorizedTransport(base: base, source: source, allowed: [Self.api]).send(HTTPRequest(url: Self.api))
        #expect(base.sent.count == 1, "a step-up is not a refresh: no retry")
        #expect(source.calls.withLock { $0.count } == 1)
        #expect(AuthorizedTransport.stepUp(in: response) == StepUpRequirement(acrValues: ["mfa"], maxAge: 60))
        #expect(AuthorizedTransport.stepUp(in: HTTPResponse(status: 403, headers: [("WWW-Authenticate", header)], url: Self.api)) == nil)
    }

    // MARK: the sign-in's request

    @Test func authenticationRequirementJoinsTheAuthorizationRequest() {
        var c = ClientConfiguration(issuer: "https://idp.example", clientID: "c")
        c.extraParameters = [
            RequestParameter.usable(name: "acr_values", value: "old")!, RequestParameter.usable(name: "ui_locales", value: "de")!
        ]
        let asked = AuthenticationRequirement(acrValues: ["mfa", "pwd"], maxAge: 120)
        #expect(
            c.authorizationRequestExtensions(asking: asked).map { "\($0.0)=\($0.1)" } == [
                "ui_locales=de", "acr_values=mfa pwd", "max_age=120"
            ])
        #expect(c.authorizationRequestExtensions.map(\.0) == ["acr_values", "ui_locales"])
    }
}
