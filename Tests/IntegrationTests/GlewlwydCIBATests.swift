import Glibc
import LatchkeyJOSE
import LatchkeyTestSupport
import Testing

/// The CIBA plugins of the test Glewlwyd (Tests/Harness/idp/configure.py), as start-idp.sh exports them.
struct CIBAIdP {
    let base: IntegrationEnvironment
    /// Plugin `ciba` (poll mode, requests open 600 s), plain and behind the TLS front, and
    /// `cibaquick` (requests expire after `shortTTL` seconds).
    let issuer: String, issuerTLS: String, issuerExpiry: String
    /// Plugin `cibadpop`: CIBA with DPoP allowed.
    let issuerDPoP: String
    /// The confidential CIBA client; its secret is the confidential clients' one.
    let client: String
    let secretFile: String, secretFileTLS: String
    let shortTTL: Int
    /// Tests/Harness/idp/approve_ciba.py.
    let approveScript: String

    static func load(_ env: [String: String] = HostEnvironment.current) throws -> CIBAIdP {
        func v(_ name: String) throws -> String { try Requirement.environmentValue("LATCHKEY_IT_" + name, environment: env) }
        return CIBAIdP(
            base: try IntegrationEnvironment.load(env), issuer: try v("ISSUER_CIBA"), issuerTLS: try v("ISSUER_CIBA_TLS"),
            issuerExpiry: try v("ISSUER_CIBA_EXPIRY"), issuerDPoP: try v("ISSUER_CIBA_DPOP"), client: try v("CLIENT_CIBA"),
            secretFile: try v("CLIENT_SECRET_FILE"), secretFileTLS: try v("CLIENT_SECRET_FILE_TLS"),
            shortTTL: Int(try v("SHORT_CIBA_TTL")) ?? 4, approveScript: try v("APPROVE_CIBA"))
    }

    func secretFile(for issuer: String) -> String { issuer.hasPrefix("https:") ? secretFileTLS : secretFile }
    func proxyLog(for issuer: String) -> String { issuer.hasPrefix("https:") ? base.proxyLogTLS : base.proxyLog }

    /// Answers the request showing `bindingMessage` as alice on her phone would.
    func answer(issuer: String, bindingMessage: String, deny: Bool = false) throws -> ProcessResult {
        try ProcessRunner.run(
            base.python,
            [
                approveScript, "--issuer", issuer, "--ca-file", base.caFile, "--client-id", client,
                "--binding-message", bindingMessage
            ] + (deny ? ["--deny"] : []),
            timeout: .seconds(30))
    }
}

/// `login --flow ciba` against Glewlwyd in poll mode: alice approves (or denies) through her own
/// session, as on her phone, while `latchkey` polls; then the session works like any other.
/// Glewlwyd's interval is a fixed 5 s, so each approved login takes about 5 s.
@Suite("Glewlwyd CIBA", .serialized)
struct GlewlwydCIBATests {
    static let hint = #"{"username":"alice"}"#

    /// A binding message no other test's request shows, so the approver answers this one.
    static func message(_ label: String) -> String { "\(label) \(getpid() % 10_000)-\(Int(wallClock() * 1000) % 100_000)" }

    func login(
        _ ws: Workspace, _ idp: CIBAIdP, issuer: String, message: String, hint: String = hint,
        answer: ((String) throws -> Void)? = nil
    ) throws -> DeviceLogin.Outcome {
        let login = DeviceLogin(
            latchkey: ws.latchkey,
            arguments: [
                "--flow", "ciba", "--issuer", issuer, "--client-id", idp.client,
                "--client-secret-file", idp.secretFile(for: issuer), "--scope", idp.base.scope,
                "--login-hint", hint, "--binding-message", message
            ])
        return try login.run(timeout: .seconds(60), trigger: "backchannel") { _, _ in try answer?(message) }
    }

    @Test("CIBA login, ID token verified, then token, token --force-refresh, logout", arguments: ["plain", "tls"])
    func cibaLogin(transport: String) throws {
        let idp = try CIBAIdP.load()
        let issuer = transport == "tls" ? idp.issuerTLS : idp.issuer
        let ws = try Workspace.glewlwyd(idp.base)
        let started = wallClock()
        let outcome = try login(ws, idp, issuer: issuer, message: Self.message("Kiosk")) { message in
            let answered = try idp.answer(issuer: issuer, bindingMessage: message)
            #expect(answered.exitCode == 0, "approve_ciba.py: \(answered) \(answered.stdoutText)")
        }
        #expect(outcome.result.exitCode == 0, "login: \(outcome.result)")
        let backchannel = try #require(outcome.events.first)
        #expect(backchannel["event"]?.stringValue == "backchannel" && backchannel["login_hint"]?.stringValue == Self.hint)
        #expect(backchannel["interval"]?.int64Value == 5, "Glewlwyd's fixed CIBA interval")
        let authorized = try #require(outcome.events.last)
        #expect(
            authorized["event"]?.stringValue == "authorized" && authorized["id_token_verified"]?.boolValue == true, "\(outcome.eventNames)")
        #expect(authorized["issuer"]?.stringValue == issuer)
        let claims = try JSONParser().parse(try ws.latchkey.run(["claims"]).stdout)
        #expect(claims["urn:openid:params:jwt:claim:auth_req_id"]?.stringValue != nil, "Glewlwyd names the request: \(claims)")

        let secret = ["--client-secret-file", idp.secretFile(for: issuer)]
        let first = try ws.latchkey.run(["token"])
        #expect(first.exitCode == 0, "token: \(first)")
        let refreshed = try ws.latchkey.run(["token", "--force-refresh"] + secret)
        #expect(refreshed.exitCode == 0 && refreshed.stdoutText != first.stdoutText, "token --force-refresh: \(refreshed)")
        let logout = try ws.latchkey.run(["logout"] + secret)
        #expect(logout.exitCode == 0 && !logout.stderrText.contains("warning"), "logout: \(logout)")

        // Server side: the request carried client authentication and the hint unchanged; polls kept
        // the 5 s interval from each previous response (and from the CIBA answer for the first).
        // Other suites share the proxy log: only this plugin's requests count.
        let plugin = "/" + issuer.split(separator: "/").suffix(2).joined(separator: "/") + "/"
        let requests = ServerLog.read(idp.proxyLog(for: issuer), since: started).filter { $0.path.hasPrefix(plugin) }
        #expect(plugin == "/api/ciba/")
        let request = try #require(requests.first { $0.path.hasSuffix("/ciba") })
        #expect(request.param("login_hint") == Self.hint)
        #expect(request.raw["auth_scheme"]?.stringValue == "Basic")
        #expect(request.status == 200)
        let polls = requests.filter { $0.grantType == "urn:openid:params:grant-type:ciba" }.sorted { $0.t < $1.t }
        #expect(!polls.isEmpty && polls.allSatisfy { $0.error != "slow_down" }, "\(polls.map(\.raw))")
        var previous = request.tDone
        for poll in polls {
            #expect(poll.t - previous >= 5 - 0.02, "poll \(poll.t - previous) s after the previous response")
            previous = poll.tDone
        }
        let revoked = requests.filter { $0.path.hasSuffix("/revoke") && $0.status == 200 }.map { $0.param("token_type_hint") ?? "?" }
        #expect(revoked == ["refresh_token", "access_token"], "revocations: \(revoked)")
    }

    @Test("CIBA with DPoP: the CIBA request and every token request carry a proof, the tokens are bound")
    func cibaWithDPoP() throws {
        let idp = try CIBAIdP.load()
        let ws = try Workspace.glewlwyd(idp.base)
        let started = wallClock()
        let outcome = try login(ws, idp, issuer: idp.issuerDPoP, message: Self.message("DPoP")) { message in
            let answered = try idp.answer(issuer: idp.issuerDPoP, bindingMessage: message)
            #expect(answered.exitCode == 0, "approve_ciba.py: \(answered)")
        }
        #expect(outcome.result.exitCode == 0, "login: \(outcome.result)")
        #expect(outcome.events.last?["token_binding"]?.stringValue == "dpop", "\(outcome.events)")
        let userinfo = try ws.latchkey.run(["fetch", idp.issuerDPoP + "/userinfo"])
        #expect(userinfo.exitCode == 0 && userinfo.stdoutText.contains("\"sub\""), "fetch /userinfo with DPoP: \(userinfo)")
        let requests = ServerLog.read(idp.base.proxyLog, since: started).filter { $0.path.hasPrefix("/api/cibadpop/") }
        let request = try #require(requests.first { $0.path.hasSuffix("/ciba") })
        #expect(request.raw["dpop"]?["htu"]?.stringValue == idp.issuerDPoP + "/ciba", "proof on the CIBA request: \(request.raw)")
        let polls = requests.filter { $0.grantType == "urn:openid:params:grant-type:ciba" }
        #expect(!polls.isEmpty && polls.allSatisfy { $0.raw["dpop"]?["htu"]?.stringValue == idp.issuerDPoP + "/token" })
    }

    @Test("alice denies the request (cancel_uri): exit 4")
    func denial() throws {
        let idp = try CIBAIdP.load()
        let ws = try Workspace.glewlwyd(idp.base)
        let outcome = try login(ws, idp, issuer: idp.issuer, message: Self.message("Deny")) { message in
            let answered = try idp.answer(issuer: idp.issuer, bindingMessage: message, deny: true)
            #expect(answered.exitCode == 0, "approve_ciba.py --deny: \(answered)")
        }
        #expect(outcome.result.exitCode == 4, "\(outcome.result)")
        #expect(outcome.events.last?["error"]?.stringValue == "access_denied")
        #expect(try ws.latchkey.run(["token"]).exitCode == 3)
    }

    @Test("nobody answers: the request expires, exit 5, at the deadline")
    func expiry() throws {
        let idp = try CIBAIdP.load()
        let ws = try Workspace.glewlwyd(idp.base)
        let started = wallClock()
        let outcome = try login(ws, idp, issuer: idp.issuerExpiry, message: Self.message("Expire"))
        let elapsed = wallClock() - started
        #expect(outcome.result.exitCode == 5, "\(outcome.result)")
        #expect(outcome.events.last?["error"]?.stringValue == "expired_token")
        #expect(elapsed >= Double(idp.shortTTL) - 0.5 && elapsed < Double(idp.shortTTL) + 10, "ended after \(elapsed) s")
    }

    @Test("a login hint naming nobody: Glewlwyd's 400 invalid_request, exit 7, pointing at --login-hint")
    func unknownUser() throws {
        let idp = try CIBAIdP.load()
        let ws = try Workspace.glewlwyd(idp.base)
        let outcome = try login(ws, idp, issuer: idp.issuer, message: Self.message("Nobody"), hint: #"{"username":"nobody"}"#)
        #expect(outcome.result.exitCode == 7, "\(outcome.result)")
        #expect(outcome.events.last?["error"]?.stringValue == "invalid_request")
        #expect(outcome.result.stderrText.contains("--login-hint"), "\(outcome.result)")
    }
}
