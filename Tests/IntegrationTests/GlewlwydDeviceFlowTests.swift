import Glibc
import LatchkeyJOSE
import LatchkeyTestSupport
import Testing

/// The `latchkey` binary against a real, independent IdP: Glewlwyd, started by Tests/run-all.sh.
/// Serialized: the tests share the IdP and its request log, and each asserts on its own time window.
@Suite("Glewlwyd", .serialized)
struct GlewlwydDeviceFlowTests {
    /// Signs in with the device flow at `issuer` with `client`, approving as a person would.
    static func login(
        _ ws: Workspace, _ env: IntegrationEnvironment, issuer: String, client: String,
        extra: [String] = []
    ) throws -> DeviceLogin.Outcome {
        let login = DeviceLogin(
            latchkey: ws.latchkey,
            arguments: [
                "--issuer", issuer, "--client-id", client, "--scope", env.scope,
                "--ca-file", env.caFile
            ] + extra)
        return try login.run { event, _ in
            let code = try #require(event["user_code"]?.stringValue)
            let approval = try env.approve(userCode: code, issuer: issuer)
            #expect(approval.exitCode == 0, "approve.py: \(approval) \(approval.stdoutText)")
        }
    }

    @Test("device login, ID token verified", arguments: ["RS256", "PS256", "ES256"])
    func deviceLogin(alg: String) throws {
        let env = try IntegrationEnvironment.load()
        let client = ["RS256": env.clientRS256, "PS256": env.clientPS256, "ES256": env.clientES256][alg]!
        let ws = try Workspace.glewlwyd(env)
        let started = wallClock()
        let outcome = try Self.login(ws, env, issuer: env.issuer, client: client)
        #expect(outcome.result.exitCode == 0, "login: \(outcome.result)")
        let authorized = try #require(
            outcome.events.first { $0["event"]?.stringValue == "authorized" },
            "events: \(outcome.eventNames)")
        #expect(authorized["id_token_verified"]?.boolValue == true)
        #expect(authorized["issuer"]?.stringValue == env.issuer)

        let idToken = try ws.latchkey.run(["id-token"])
        #expect(idToken.exitCode == 0, "id-token: \(idToken)")
        #expect(jwsAlgorithm(idToken.stdoutText.trimmed) == alg)
        let token = try ws.latchkey.run(["token"])
        #expect(token.exitCode == 0 && token.stdoutText.trimmed.split(separator: ".").count == 3, "token: \(token)")

        // Server side: polls never came sooner than the interval, so the server never said slow_down.
        let requests = ServerLog.read(env.proxyLog, since: started).filter { $0.param("client_id") == client }
        let polls = requests.filter(\.isDevicePoll)
        #expect(!polls.isEmpty, "no device polls logged")
        #expect(polls.allSatisfy { $0.error != "slow_down" }, "slow_down earned: \(polls.map(\.raw))")
        for gap in ServerLog.pollGaps(requests) {
            #expect(gap >= Double(env.deviceInterval) - 0.02, "poll \(gap)s after the previous response")
        }
    }

    @Test("device login over TLS (localhost certificate from the test CA), then token, refresh, logout")
    func deviceLoginOverTLS() throws {
        let env = try IntegrationEnvironment.load()
        let ws = try Workspace.glewlwyd(env)
        let started = wallClock()
        let outcome = try Self.login(ws, env, issuer: env.issuerTLS, client: env.clientES256)
        #expect(outcome.result.exitCode == 0, "login: \(outcome.result)")
        let first = try ws.latchkey.run(["token"])
        #expect(first.exitCode == 0, "token: \(first)")
        let refreshed = try ws.latchkey.run(["refresh"])
        #expect(refreshed.exitCode == 0, "refresh: \(refreshed)")
        let second = try ws.latchkey.run(["token"])
        #expect(second.exitCode == 0 && second.stdoutText != first.stdoutText, "token after refresh: \(second)")
        let logout = try ws.latchkey.run(["logout"])
        #expect(logout.exitCode == 0, "logout: \(logout)")
        let revoked = ServerLog.read(env.proxyLogTLS, since: started)
            .filter { $0.path.hasSuffix("/revoke") && $0.status == 200 }.map { $0.param("token_type_hint") ?? "?" }
        #expect(revoked == ["refresh_token", "access_token"], "successful revocations over TLS: \(revoked)")
    }

    @Test("without the test CA the TLS issuer is refused as a network/TLS failure (exit 6)")
    func untrustedCertificate() throws {
        let env = try IntegrationEnvironment.load()
        let ws = try Workspace(extraEnvironment: ["SSL_CERT_FILE": "/etc/ssl/certs/ca-certificates.crt"])
        let r = try ws.latchkey.run(["discover", "--issuer", env.issuerTLS], timeout: .seconds(30))
        #expect(r.exitCode == 6, "discover without the CA: \(r)")
    }

    @Test("an unapproved device code expires: exit 5, at the server's deadline")
    func deviceCodeExpiry() throws {
        let env = try IntegrationEnvironment.load()
        let ws = try Workspace.glewlwyd(env)
        let login = DeviceLogin(
            latchkey: ws.latchkey,
            arguments: [
                "--issuer", env.issuerDeviceExpiry,
                "--client-id", env.clientRS256, "--scope", env.scope
            ])
        let outcome = try login.run(timeout: .seconds(60)) { _, _ in }
        #expect(outcome.result.exitCode == 5, "login: \(outcome.result)")
        let limit = Duration.seconds(env.shortDeviceTTL + env.deviceInterval + 10)
        #expect(outcome.result.elapsed < limit, "took \(outcome.result.elapsed)")
        #expect(outcome.events.last?["event"]?.stringValue == "error", "events: \(outcome.eventNames)")
        #expect(outcome.events.last?.number("exit_code") == 5)
    }

    @Test("SIGINT while polling: exit 130 and no token file left behind")
    func interruptWhilePolling() throws {
        let env = try IntegrationEnvironment.load()
        let ws = try Workspace.glewlwyd(env)
        let login = DeviceLogin(
            latchkey: ws.latchkey,
            arguments: [
                "--issuer", env.issuer,
                "--client-id", env.clientRS256, "--scope", env.scope
            ])
        let outcome = try login.run(timeout: .seconds(30)) { _, child in
            usleep(1_500_000)  // let it poll at least once
            child.send(signal: SIGINT)
        }
        #expect(outcome.result.exitCode == 130, "login: \(outcome.result)")
        #expect(outcome.result.elapsed < .seconds(10))
        let status = try ws.latchkey.run(["status"])
        #expect(status.exitCode == 3, "status after an interrupted login: \(status)")
    }

    @Test("code flow with PKCE and a loopback listener (--flow browser)")
    func codeFlowBrowser() throws {
        let env = try IntegrationEnvironment.load()
        let ws = try Workspace.glewlwyd(env)
        let started = wallClock()
        let login = DeviceLogin(
            latchkey: ws.latchkey,
            arguments: [
                "--issuer", env.issuer, "--client-id", env.clientCode, "--scope", env.scope,
                "--flow", "browser", "--redirect-uri", env.redirectURI
            ])
        let outcome = try login.run(trigger: "authorization_url") { event, _ in
            let url = try #require(event["url"]?.stringValue)
            #expect(url.contains("code_challenge_method=S256"), "authorization URL: \(url)")
            // OpenID Connect Core §11, and Glewlwyd signs in with it.
            #expect(
                url.contains("prompt=consent") == env.scope.split(separator: " ").contains("offline_access"), "authorization URL: \(url)")
            let browser = try env.completeBrowserLogin(authorizationURL: url)
            #expect(browser.exitCode == 0, "browser: \(browser) \(browser.stdoutText)")
        }
        #expect(outcome.result.exitCode == 0, "login: \(outcome.result) events \(outcome.eventNames)")
        let exchange = ServerLog.read(env.proxyLog, since: started).filter { $0.grantType == "authorization_code" }
        #expect(exchange.count == 1 && exchange.first?.param("code_verifier") != nil, "\(exchange.map(\.raw))")
        let claims = try ws.latchkey.run(["claims"])
        #expect(claims.exitCode == 0 && claims.stdoutText.contains("\"nonce\""), "claims: \(claims)")
    }

    @Test("confidential client with client_secret_basic from a secret file")
    func confidentialClient() throws {
        let env = try IntegrationEnvironment.load()
        let ws = try Workspace.glewlwyd(env)
        let outcome = try Self.login(
            ws, env, issuer: env.issuer, client: env.clientConfidential,
            extra: [
                "--client-secret-file", env.clientSecretFile,
                "--auth-method", "client_secret_basic"
            ])
        #expect(outcome.result.exitCode == 0, "login: \(outcome.result)")
        #expect(!outcome.result.stdoutText.contains(FileText.read(env.clientSecretFile) ?? "<none>"))
        #expect(!outcome.result.stderrText.contains(FileText.read(env.clientSecretFile) ?? "<none>"))
    }
}
