import FoundationEssentials
import LatchkeyHTTP
import LatchkeyTesting
import Testing

@testable import Latchkey

@Suite struct AuthorizationCodeFlowTests {
    func flow(_ metadata: ProviderMetadata = testMetadata()) -> AuthorizationCodeFlow {
        let client = try! TokenClient.testing(
            configuration: testConfiguration(), metadata: metadata,
            transport: ScriptedTransport { _, _ in Reply.empty(500) }, random: CountingRandom())
        return AuthorizationCodeFlow(client: client, random: CountingRandom())
    }

    @Test func authorizationURLCarriesEveryParameter() throws {
        let request = try flow().makeRequest(redirectURI: "http://127.0.0.1:4000/callback")
        #expect(request.url.absoluteString.hasPrefix("https://idp.example/authorize?"))
        let q = Dictionary(FormURLEncoding.decode(request.url.query ?? ""), uniquingKeysWith: { a, _ in a })
        #expect(q["response_type"] == "code")
        #expect(q["client_id"] == TestIssuer.clientID)
        #expect(q["redirect_uri"] == "http://127.0.0.1:4000/callback")
        #expect(q["scope"] == "openid offline_access")
        #expect(q["state"] == request.state && !request.state.isEmpty)
        #expect(q["nonce"] == request.nonce && !request.nonce.isEmpty)
        #expect(q["code_challenge"] == request.pkce.challenge)
        #expect(q["code_challenge_method"] == "S256")
        #expect(request.pkce.verifier.count >= 43)
    }

    /// OpenID Connect Core §11: a request for offline access carries `prompt=consent` (the OpenID
    /// Foundation's test provider refuses it otherwise), unless the operator chose a prompt.
    @Test func offlineAccessAsksForConsentUnlessAPromptIsGiven() throws {
        func prompts(_ configure: (inout ClientConfiguration) -> Void) throws -> [String] {
            var c = testConfiguration()
            configure(&c)
            let client = try TokenClient.testing(
                configuration: c, metadata: testMetadata(),
                transport: ScriptedTransport { _, _ in Reply.empty(500) }, random: CountingRandom())
            let request = try AuthorizationCodeFlow(client: client, random: CountingRandom()).makeRequest(
                redirectURI: "http://127.0.0.1:4000/callback")
            return FormURLEncoding.decode(request.url.query ?? "").filter { $0.0 == "prompt" }.map(\.1)
        }
        #expect(try prompts { _ in } == ["consent"])
        #expect(try prompts { $0.scopes = ["openid"] } == [])
        #expect(try prompts { $0.extraParameters = [RequestParameter.usable(name: "prompt", value: "login")!] } == ["login"])
        #expect(try prompts { $0.extraParameters = [RequestParameter.usable(name: "prompt", value: "consent")!] } == ["consent"])
        #expect(try prompts { $0.extraParameters = [RequestParameter.usable(name: "ui_locales", value: "de")!] } == ["consent"])
    }

    @Test func stateMustMatch() throws {
        let f = flow()
        let request = try f.makeRequest(redirectURI: "http://127.0.0.1:4000/callback")
        #expect(try f.code(from: .parameters([("code", "c"), ("state", request.state)]), for: request) == "c")
        #expect(throws: LatchkeyError.self) { try f.code(from: .parameters([("code", "c"), ("state", "forged")]), for: request) }
        #expect(throws: LatchkeyError.self) { try f.code(from: .parameters([("code", "c")]), for: request) }
    }

    @Test func rfc9207IssuerChecked() throws {
        let f = flow()
        let request = try f.makeRequest(redirectURI: "http://127.0.0.1:4000/callback")
        #expect(try f.code(from: .parameters([("code", "c"), ("state", request.state), ("iss", TestIssuer.issuer)]), for: request) == "c")
        do {
            _ = try f.code(from: .parameters([("code", "c"), ("state", request.state), ("iss", "https://mix-up.example")]), for: request)
            Issue.record("accepted a foreign iss")
        } catch { #expect(error.code == "issuer_mismatch") }

        var m = testMetadata()
        m.authorizationResponseIssParameterSupported = true
        let strict = flow(m)
        let r2 = try strict.makeRequest(redirectURI: "http://127.0.0.1:4000/callback")
        #expect(throws: LatchkeyError.self) { try strict.code(from: .parameters([("code", "c"), ("state", r2.state)]), for: r2) }
    }

    @Test func redirectErrorsMapToExitCodes() throws {
        let f = flow()
        let request = try f.makeRequest(redirectURI: "http://127.0.0.1:4000/callback")
        do { _ = try f.code(from: .parameters([("error", "access_denied"), ("state", request.state)]), for: request) } catch {
            #expect(error.category == .denied)
        }
        do { _ = try f.code(from: .parameters([("error", "invalid_scope"), ("state", request.state)]), for: request) } catch {
            #expect(error.category == .protocolViolation)
        }
    }

    /// Issue 12, item 2: `state` is checked before `error`, so whoever cannot show it can neither
    /// end the sign-in (exit 4) nor put their own error text in front of the person.
    @Test func errorRedirectsWithoutTheRightStateAreRefusedAsForgeries() throws {
        let f = flow()
        let request = try f.makeRequest(redirectURI: "http://127.0.0.1:4000/callback")
        for forged in [
            [("error", "access_denied")], [("error", "access_denied"), ("state", "forged")],
            [("error", "server_error"), ("error_description", "\u{1B}]0;owned\u{07}")]
        ] {
            do {
                _ = try f.code(from: .parameters(forged), for: request)
                Issue.record("accepted \(forged)")
            } catch {
                #expect(error.code == "protocol_violation", "\(forged): \(error)")
                #expect(!error.message.contains("owned"))
            }
            #expect(!AuthorizationCodeFlow.matchesState(.parameters(forged), of: request))
        }
        #expect(AuthorizationCodeFlow.matchesState(.parameters([("error", "access_denied"), ("state", request.state)]), of: request))
    }

    @Test func pastedInputForms() throws {
        guard case .parameters(let p) = try PastedRedirectReceiver.parse("  http://127.0.0.1:53682/callback?code=a%2Fb&state=s#frag \n")
        else {
            Issue.record("URL not parsed"); return
        }
        #expect(p.map(\.0) == ["code", "state"])
        #expect(p[0].1 == "a/b")
        guard case .bareCode(let c) = try PastedRedirectReceiver.parse("4/0AbCdEf") else {
            Issue.record("bare code not recognised"); return
        }
        #expect(c == "4/0AbCdEf")
        guard case .parameters = try PastedRedirectReceiver.parse("code=x&state=y") else { Issue.record("query not parsed"); return }
        #expect(throws: LatchkeyError.self) { try PastedRedirectReceiver.parse("   ") }
    }

    /// Stdin closed before anything was pasted is the person's input ending, not a signal: a
    /// configuration-class error (the CLI's exit 2) that says so; only cancellation is `.cancelled`.
    @Test func endOfInputBeforeAPasteIsNotAnInterruption() async {
        let ended = PastedRedirectReceiver(redirectURI: PastedRedirectReceiver.defaultRedirectURI, readLine: { nil })
        do {
            _ = try await ended.receive(timeout: nil, accepting: { _ in true })
            Issue.record("end of input was accepted")
        } catch {
            #expect(error.category == .configuration, "\(error)")
            #expect(error.message == "no redirect URL was pasted: end of input")
        }
        let cancelled = PastedRedirectReceiver(
            redirectURI: PastedRedirectReceiver.defaultRedirectURI,
            readLine: { throw CancellationError() })
        do {
            _ = try await cancelled.receive(timeout: nil, accepting: { _ in true })
            Issue.record("a cancelled read was accepted")
        } catch {
            #expect(error.category == .cancelled, "\(error)")
        }
    }

    @Test func pkceRFC7636AppendixB() throws {
        let p = try PKCE(verifier: "dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk")
        #expect(p.challenge == "E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM")
        #expect(throws: PKCEError.self) { try PKCE(verifier: "short") }
        #expect(throws: PKCEError.self) { try PKCE(verifier: String(repeating: "a", count: 42) + "!") }
        #expect(PKCE(random: CountingRandom()).verifier.count == 43)
    }
}
