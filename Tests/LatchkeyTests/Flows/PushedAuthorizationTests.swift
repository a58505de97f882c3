import FoundationEssentials
import LatchkeyCrypto
import LatchkeyHTTP
import LatchkeyJOSE
import LatchkeyTesting
import Testing

@testable import Latchkey

/// RFC 9126: when the code flow pushes, what it pushes, how the answer is read, and the URL it
/// then opens.
@Suite struct PushedAuthorizationTests {
    let clock = VirtualClock()

    static func parMetadata(required: Bool? = nil) -> ProviderMetadata {
        var m = testMetadata()
        m.pushedAuthorizationRequestEndpoint = "https://idp.example/par"
        m.requirePushedAuthorizationRequests = required
        return m
    }

    static let pushed = Reply.json(201, #"{"request_uri":"urn:ietf:params:oauth:request_uri:abc","expires_in":60}"#)

    func flow(
        _ t: ScriptedTransport, metadata: ProviderMetadata = parMetadata(), configure: (inout ClientConfiguration) -> Void = { _ in },
        authenticator: (any RequestAuthenticator)? = nil, dpop: DPoPKey? = nil
    ) -> AuthorizationCodeFlow {
        var c = testConfiguration()
        configure(&c)
        let auth = authenticator ?? PublicClientAuthentication(clientID: c.clientID)
        let client = TokenClient(
            configuration: c, metadata: metadata,
            binding: SessionBinding(
                clientAuthentication: auth, dpopKey: dpop, transports: EndpointTransports(t),
                time: clock, random: CountingRandom()))
        return AuthorizationCodeFlow(client: client, random: CountingRandom(), time: clock)
    }

    static func pairs(_ r: ScriptedTransport.SentRequest) -> [(String, String)] {
        FormURLEncoding.decode(String(decoding: r.request.body, as: UTF8.self))
    }

    // MARK: The answer

    @Test func a201WithRequestURIAndExpiryIsRead() throws {
        let answer = try PushedAuthorizationResponse.parse(Self.pushed)
        #expect(answer == PushedAuthorizationResponse(requestURI: "urn:ietf:params:oauth:request_uri:abc", expiresIn: 60))
        let long = try PushedAuthorizationResponse.parse(Reply.json(201, #"{"request_uri":"urn:x","expires_in":99999999}"#))
        #expect(long.expiresIn == PushedAuthorizationResponse.maxExpiresIn)
    }

    @Test func malformedAnswersAreProtocolViolations() {
        for body in [
            #"{"expires_in":60}"#, #"{"request_uri":"","expires_in":60}"#, #"{"request_uri":7,"expires_in":60}"#,
            #"{"request_uri":"urn:x"}"#, #"{"request_uri":"urn:x","expires_in":0}"#,
            #"{"request_uri":"urn:x","expires_in":"60"}"#, #"{"request_uri":"urn:\u001b[2Jx","expires_in":60}"#, "[]"
        ] {
            do {
                _ = try PushedAuthorizationResponse.parse(Reply.json(201, body))
                Issue.record("accepted \(body)")
            } catch {
                #expect(error.category == .protocolViolation && error.code == "protocol_violation", "\(body): \(error)")
            }
        }
    }

    @Test func errorsAndOtherStatusesNameThePushEndpoint() {
        do {
            _ = try PushedAuthorizationResponse.parse(Reply.json(400, #"{"error":"invalid_target","error_description":"no"}"#))
            Issue.record("accepted an error")
        } catch {
            guard case .oauth(let e, let role) = error else { Issue.record("\(error)"); return }
            #expect(e.code == "invalid_target" && role == .pushedAuthorization)
        }
        // RFC 9126 §2.2 says 201; a 200 is not taken on trust.
        do {
            _ = try PushedAuthorizationResponse.parse(Reply.json(200, #"{"request_uri":"urn:x","expires_in":60}"#))
            Issue.record("accepted a 200")
        } catch {
            guard case .oauth(.unexpectedStatus(200), .pushedAuthorization) = error else { Issue.record("\(error)"); return }
        }
    }

    // MARK: When to push

    @Test func modeAgainstMetadata() throws {
        let plain = testMetadata()
        #expect(try PARMode.auto.uses(plain) == false)
        #expect(try PARMode.auto.uses(Self.parMetadata()) == true)
        #expect(try PARMode.never.uses(Self.parMetadata()) == false)
        #expect(try PARMode.always.uses(Self.parMetadata()) == true)
        #expect(throws: LatchkeyError.self) { try PARMode.always.uses(plain) }
        do {
            _ = try PARMode.never.uses(Self.parMetadata(required: true))
            Issue.record("never was accepted by a provider requiring PAR")
        } catch {
            guard case .configuration(.pushedAuthorizationRequired) = error else { Issue.record("\(error)"); return }
        }
        var requiredWithoutEndpoint = testMetadata()
        requiredWithoutEndpoint.requirePushedAuthorizationRequests = true
        #expect(throws: LatchkeyError.self) { try PARMode.auto.uses(requiredWithoutEndpoint) }
    }

    @Test func metadataMembersAreRead() throws {
        let doc = try JSONParser().parseObject(
            Array(
                #"{"issuer":"https://i","pushed_authorization_request_endpoint":"https://i/par","require_pushed_authorization_requests":true}"#
                    .utf8))
        let m = try ProviderMetadata(json: doc)
        #expect(m.pushedAuthorizationRequestEndpoint == "https://i/par" && m.requirePushedAuthorizationRequests == true)
    }

    // MARK: What is pushed, and the URL

    @Test func thePushCarriesEverything() async throws {
        let t = ScriptedTransport(clock: clock, script: [.reply(Self.pushed)])
        let key = try DPoPKey(random: CountingRandom())
        let f = flow(
            t,
            configure: {
                $0.resources = ["https://api.example/a", "https://api.example/b"]
                $0.extraParameters = [RequestParameter.usable(name: "prompt", value: "consent")!]
            }, dpop: key)
        let request = try await f.prepareRequest(redirectURI: "http://127.0.0.1:4000/callback")
        let sent = try #require(t.sent.first)
        #expect(sent.path == "/par" && sent.request.method == "POST")
        let form = Self.pairs(sent)
        func values(_ n: String) -> [String] { form.filter { $0.0 == n }.map(\.1) }
        #expect(values("client_id") == [TestIssuer.clientID], "client_id exactly once: \(form)")
        #expect(values("response_type") == ["code"])
        #expect(values("redirect_uri") == ["http://127.0.0.1:4000/callback"])
        #expect(values("state") == [request.state] && values("nonce") == [request.nonce])
        #expect(values("code_challenge") == [request.pkce.challenge] && values("code_challenge_method") == ["S256"])
        #expect(values("dpop_jkt") == [key.thumbprint])
        #expect(values("resource") == ["https://api.example/a", "https://api.example/b"])
        #expect(values("prompt") == ["consent"])
        // RFC 9449 §7.1 does not forbid a proof on PAR; the pipeline adds one for a DPoP session.
        #expect(sent.header("DPoP") != nil)
        #expect(request.url.absoluteString.hasPrefix("https://idp.example/authorize?"))
        #expect(request.pushedExpiresAt == clock.now().addingTimeInterval(60))
    }

    /// OpenID Connect Core §6.2 wants `response_type` and `scope` beside `request_uri` for an
    /// OpenID request, and idpyoidc 5.0.0 also `redirect_uri` ("Missing required attribute
    /// 'redirect_uri'") and, for offline access, the `prompt` ("consent in prompt", §11); RFC 9101
    /// §5 allows repeating pushed values. They are the pushed values, and nothing else joins them.
    @Test func anOpenIDPushRepeatsResponseTypeScopeRedirectURIAndPromptInTheURLAndNothingElse() async throws {
        let t = ScriptedTransport(clock: clock, script: [.reply(Self.pushed)])
        let f = flow(
            t,
            configure: {
                $0.resources = ["https://api.example/a"]
                $0.extraParameters = [RequestParameter.usable(name: "audience", value: "https://api.example")!]
            })
        let request = try await f.prepareRequest(redirectURI: "http://127.0.0.1:4000/callback")
        let form = Self.pairs(try #require(t.sent.first))
        let query = FormURLEncoding.decode(request.url.query ?? "")
        #expect(
            query.map(\.0) == ["client_id", "request_uri", "response_type", "scope", "redirect_uri", "prompt"],
            "authorization URL: \(request.url.absoluteString)")
        #expect(query[1].1 == "urn:ietf:params:oauth:request_uri:abc")
        for name in ["client_id", "response_type", "scope", "redirect_uri", "prompt"] {
            #expect(
                query.filter { $0.0 == name }.map(\.1) == form.filter { $0.0 == name }.map(\.1), "\(name) differs from the pushed value")
        }
        #expect(query.first { $0.0 == "scope" }?.1 == "openid offline_access")
    }

    /// Without offline access no `prompt` is pushed, and none is repeated; `redirect_uri` still is.
    @Test func anOpenIDPushWithoutOfflineAccessRepeatsNoPrompt() async throws {
        let t = ScriptedTransport(clock: clock, script: [.reply(Self.pushed)])
        let request = try await flow(t, configure: { $0.scopes = ["openid", "profile"] })
            .prepareRequest(redirectURI: "http://127.0.0.1:4000/callback")
        let query = FormURLEncoding.decode(request.url.query ?? "")
        #expect(query.map(\.0) == ["client_id", "request_uri", "response_type", "scope", "redirect_uri"], "\(request.url.absoluteString)")
        #expect(query.last?.1 == "http://127.0.0.1:4000/callback")
    }

    @Test func aPushWithoutOpenIDLeavesOnlyClientIDAndRequestURIInTheURL() async throws {
        for scopes in [["api.read", "offline_access"], []] {
            let t = ScriptedTransport(clock: clock, script: [.reply(Self.pushed)])
            let request = try await flow(t, configure: { $0.scopes = scopes }).prepareRequest(redirectURI: "http://127.0.0.1:4000/callback")
            let query = FormURLEncoding.decode(request.url.query ?? "")
            #expect(query.map(\.0) == ["client_id", "request_uri"], "\(scopes): \(request.url.absoluteString)")
        }
    }

    @Test func aConfidentialClientAuthenticatesThePushLikeATokenRequest() async throws {
        let t = ScriptedTransport(clock: clock, script: [.reply(Self.pushed)])
        let f = flow(
            t, configure: { $0.authMethod = .clientSecretBasic },
            authenticator: ClientSecretAuthentication(clientID: TestIssuer.clientID, secret: "s3cret", placement: .basic))
        _ = try await f.prepareRequest(redirectURI: "http://127.0.0.1:4000/callback")
        #expect(t.sent[0].header("Authorization")?.hasPrefix("Basic ") == true)
        #expect(Self.pairs(t.sent[0]).filter { $0.0 == "client_id" }.count == 1)
        let post = ScriptedTransport(clock: clock, script: [.reply(Self.pushed)])
        _ = try await flow(
            post, authenticator: ClientSecretAuthentication(clientID: TestIssuer.clientID, secret: "s3cret", placement: .post)
        )
        .prepareRequest(redirectURI: "http://127.0.0.1:4000/callback")
        let form = Self.pairs(post.sent[0])
        #expect(form.filter { $0.0 == "client_id" }.count == 1 && form.contains { $0 == ("client_secret", "s3cret") })
    }

    @Test func withoutPAREveryParameterIsInTheURL() async throws {
        let t = ScriptedTransport(clock: clock, script: [])
        let f = flow(
            t, metadata: testMetadata(),
            configure: {
                $0.resources = ["https://api.example/a"]
                $0.extraParameters = [RequestParameter.usable(name: "audience", value: "https://api.example")!]
            })
        let request = try await f.prepareRequest(redirectURI: "http://127.0.0.1:4000/callback")
        #expect(t.sent.isEmpty)
        let q = FormURLEncoding.decode(request.url.query ?? "")
        #expect(q.contains { $0 == ("resource", "https://api.example/a") } && q.contains { $0 == ("audience", "https://api.example") })
        #expect(request.pushedExpiresAt == nil)
    }

    @Test func aPushWithoutRequestURIStopsTheFlowBeforeAnyURLIsShown() async {
        let t = ScriptedTransport(clock: clock, script: [.reply(Reply.json(201, #"{"expires_in":60}"#))])
        let receiver = RecordingReceiver()
        await expectError(category: .protocolViolation, code: "protocol_violation") {
            try await flow(t).run(receiver: receiver, events: { _ in Issue.record("an event was reported") })
        }
        #expect(receiver.timeouts.isEmpty)
    }

    // MARK: Expiry

    @Test func theWaitIsCappedAtTheRequestURILifetime() async throws {
        let t = ScriptedTransport(clock: clock, script: [.reply(Self.pushed)])
        let receiver = RecordingReceiver()
        await expectError(category: .expired, code: "expired_token") { try await flow(t).run(receiver: receiver, timeout: 300) }
        #expect(receiver.timeouts == [60])
        // A shorter --timeout of the caller's own stays a timeout.
        let t2 = ScriptedTransport(clock: clock, script: [.reply(Self.pushed)])
        let r2 = RecordingReceiver()
        await expectError(category: .expired, code: "timed_out") { try await flow(t2).run(receiver: r2, timeout: 10) }
        #expect(r2.timeouts == [10])
    }

    @Test func aRefusedRequestURIOnTheRedirectIsAClearExpiry() async throws {
        let t = ScriptedTransport(clock: clock, script: [.reply(Self.pushed)])
        let f = flow(t)
        let request = try await f.prepareRequest(redirectURI: "http://127.0.0.1:4000/callback")
        do {
            _ = try f.code(from: .parameters([("error", "invalid_request_uri"), ("state", request.state)]), for: request)
            Issue.record("accepted")
        } catch {
            #expect(error.category == .expired && error.code == "invalid_request_uri", "\(error)")
            #expect(error.message.contains("pushed authorization request"))
        }
    }
}

/// A redirect receiver that never gets a redirect: it records the wait it was given and times out.
final class RecordingReceiver: RedirectReceiver, @unchecked Sendable {
    let redirectURI = "http://127.0.0.1:4000/callback"
    private(set) var timeouts: [Double] = []
    func receive(timeout: Double?, accepting: @escaping @Sendable (AuthorizationRedirect) -> Bool) async throws(LatchkeyError)
        -> AuthorizationRedirect
    {
        timeouts.append(timeout ?? -1)
        throw .timedOut(seconds: timeout ?? 0)
    }
}
