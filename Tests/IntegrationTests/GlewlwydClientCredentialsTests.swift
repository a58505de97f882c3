import Glibc
import LatchkeyJOSE
import LatchkeyTestSupport
import Testing

/// The client-credentials grant (RFC 6749 §4.4) at Glewlwyd's `machine` plugin (access tokens
/// live LATCHKEY_IT_SHORT_AT_TTL seconds; client `latchkey-machine`, scope `machine`).
@Suite("Glewlwyd client credentials", .serialized)
struct GlewlwydClientCredentialsTests {
    func workspace(_ env: IssueSixteenEnvironment, tls: Bool = false) throws -> Workspace {
        try Workspace(extraEnvironment: [
            "LATCHKEY_CA_FILE": env.base.caFile,
            "LATCHKEY_CLIENT_SECRET": FileText.read(tls ? env.machineSecretFileTLS : env.machineSecretFile) ?? ""
        ])
    }

    func login(_ ws: Workspace, _ env: IssueSixteenEnvironment, issuer: String, verbose: Bool = false) throws -> ProcessResult {
        try ws.latchkey.run(
            (verbose ? ["-v"] : []) + [
                "login", "--json", "--flow", "client-credentials", "--issuer", issuer,
                "--client-id", env.clientMachine, "--scope", "machine glwd_revoke",
                "--resource", env.resource
            ])
    }

    @Test(
        "login, token, status (the client is the subject) and logout, over plain HTTP and TLS; the secret never shows",
        arguments: [false, true])
    func signInAndOut(tls: Bool) throws {
        let env = try IssueSixteenEnvironment.load()
        let ws = try workspace(env, tls: tls)
        let secret = try #require(FileText.read(tls ? env.machineSecretFileTLS : env.machineSecretFile))
        let started = wallClock()
        let login = try login(ws, env, issuer: tls ? env.issuerMachineTLS : env.issuerMachine, verbose: true)
        #expect(login.exitCode == 0, "\(login)")
        #expect(login.stdoutText.contains("\"subject\":\"\(env.clientMachine)\""), "\(login.stdoutText)")
        let token = try ws.latchkey.run(["-v", "token", "--min-ttl", "0"])
        #expect(token.exitCode == 0 && accessTokenAudience(token.stdoutText.trimmed) == env.resource, "\(token)")
        let status = try JSONParser().parseObject(try ws.latchkey.run(["status", "--json"]).stdout)
        #expect(status["subject"]?.stringValue == env.clientMachine, "\(status)")
        let logout = try ws.latchkey.run(["-v", "logout"])
        #expect(logout.exitCode == 0 && !logout.stderrText.contains("warning"), "\(logout)")
        let revoked = ServerLog.read(tls ? env.base.proxyLogTLS : env.base.proxyLog, since: started)
            .filter { $0.path.hasSuffix("/machine/revoke") && $0.status == 200 }
        #expect(revoked.map { $0.param("token_type_hint") ?? "?" } == ["access_token"], "\(revoked.map(\.raw))")
        for output in [login, token, logout] {
            #expect(!output.stderrText.contains(secret) && !output.stdoutText.contains(secret), "the client secret was printed")
        }
        #expect(login.stderrText.contains("Authorization: Basic [REDACTED]"), "\(login.stderrText)")
    }

    @Test("32 processes at expiry make exactly one client-credentials request; all print the same new token")
    func renewalContention() throws {
        let env = try IssueSixteenEnvironment.load()
        let ws = try workspace(env)
        let login = try login(ws, env, issuer: env.issuerMachine)
        try #require(login.exitCode == 0, "\(login)")
        let original = try ws.latchkey.run(["token", "--min-ttl", "0"]).stdoutText.trimmed
        let ttl = env.base.shortAccessTokenTTL
        let minTTL = ttl * 5 / 6
        usleep(UInt32((ttl - minTTL + 1) * 1_000_000))
        let started = wallClock()
        let children = try (0..<32).map { _ in try ws.latchkey.start(["token", "--min-ttl", String(minTTL)]) }
        let results = children.map { $0.waitForExit(timeout: .seconds(60)) }
        let grants = ServerLog.read(env.base.proxyLog, since: started)
            .filter { $0.grantType == "client_credentials" && $0.path.contains("/machine/") }
        #expect(grants.count == 1, "client-credentials requests: \(grants.map(\.raw))")
        #expect(results.allSatisfy { $0.exitCode == 0 }, "\(results.filter { $0.exitCode != 0 })")
        let tokens = Set(results.map { $0.stdoutText.trimmed })
        #expect(tokens.count == 1 && tokens.first != original && tokens.first?.isEmpty == false, "distinct tokens: \(tokens.count)")
        #expect(tokens.first.flatMap(accessTokenAudience) == env.resource, "the renewed token keeps the resource")
    }

    @Test("a wrong secret is refused at sign-in (exit 7) and never printed")
    func wrongSecret() throws {
        let env = try IssueSixteenEnvironment.load()
        let bad = try Workspace(extraEnvironment: ["LATCHKEY_CA_FILE": env.base.caFile, "LATCHKEY_CLIENT_SECRET": "not-the-secret"])
        let refused = try login(bad, env, issuer: env.issuerMachine)
        #expect(refused.exitCode == 7, "\(refused)")
        #expect(!refused.stdoutText.contains("not-the-secret") && !refused.stderrText.contains("not-the-secret"))
    }
}
