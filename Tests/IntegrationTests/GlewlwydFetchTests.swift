import LatchkeyJOSE
import LatchkeyTestSupport
import Testing

/// `latchkey fetch` of Glewlwyd's /userinfo: with a Bearer token (the plain plugin) and with a
/// DPoP-bound one (the `dpop` plugin), where fetch must add `Authorization: DPoP` and a proof
/// with `ath` for exactly that request.
@Suite("Glewlwyd fetch", .serialized)
struct GlewlwydFetchTests {
    @Test("fetch /userinfo with a Bearer token: 200 and the subject")
    func bearerUserinfo() throws {
        let env = try IntegrationEnvironment.load()
        let ws = try Workspace.glewlwyd(env)
        let outcome = try GlewlwydDeviceFlowTests.login(ws, env, issuer: env.issuer, client: env.clientES256, extra: ["--dpop", "never"])
        try #require(outcome.result.exitCode == 0, "login: \(outcome.result)")
        let result = try ws.latchkey.run(["fetch", env.issuer + "/userinfo"])
        #expect(result.exitCode == 0, "fetch: \(result) \(result.stderrText)")
        let claims = try JSONParser().parseObject(result.stdout)
        #expect(claims["sub"]?.stringValue?.isEmpty == false, "\(result.stdoutText)")
        // The same endpoint without a token is refused, so the 200 above is the token's doing.
        let bare = try ProcessRunner.run("/usr/bin/curl", ["-s", "-o", "/dev/null", "-w", "%{http_code}", env.issuer + "/userinfo"])
        #expect(bare.stdoutText != "200", "userinfo without a token: \(bare.stdoutText)")
    }

    @Test("fetch /userinfo with a DPoP-bound token: Authorization DPoP and a proof Glewlwyd accepts")
    func dpopUserinfo() throws {
        let dpop = try DPoPIdP.load()
        let session = try GlewlwydDPoPTests.login(dpop, issuer: dpop.issuer)
        #expect(session.authorized?["token_binding"]?.stringValue == "dpop")
        let result = try session.ws.latchkey.run(["--verbose", "fetch", dpop.issuer + "/userinfo"])
        #expect(result.exitCode == 0, "fetch: \(result) \(result.stderrText)")
        let claims = try JSONParser().parseObject(result.stdout)
        #expect(claims["sub"]?.stringValue?.isEmpty == false, "\(result.stdoutText)")
        #expect(result.stderrText.contains("> Authorization: DPoP [REDACTED]"), "\(result.stderrText)")
        #expect(result.stderrText.contains("> DPoP: [REDACTED]"), "\(result.stderrText)")
    }

    /// Glewlwyd 2.7.5's /userinfo refuses a revoked token with a bare 401: no `WWW-Authenticate`,
    /// so no `error="invalid_token"` (measured), and the contract refreshes only on that. fetch
    /// therefore does not refresh and exits 10, with the empty body it got.
    @Test("tokens revoked at Glewlwyd (logout from a copy of the state): a bare 401, no refresh, exit 10")
    func revokedSessionExitsThree() throws {
        let env = try IntegrationEnvironment.load()
        let ws = try Workspace.glewlwyd(env)
        let outcome = try GlewlwydDeviceFlowTests.login(ws, env, issuer: env.issuer, client: env.clientES256, extra: ["--dpop", "never"])
        try #require(outcome.result.exitCode == 0, "login: \(outcome.result)")
        #expect(try ws.latchkey.run(["fetch", env.issuer + "/userinfo"]).exitCode == 0)
        // The same session, revoked at the server (refresh and access token, RFC 7009) from a copy.
        let copy = try ws.snapshot()
        let logout = try copy.latchkey.run(["logout"])
        #expect(logout.exitCode == 0 && !logout.stderrText.contains("warning"), "logout: \(logout) \(logout.stderrText)")
        let started = wallClock()
        // A query of its own tells this request from other suites' /userinfo calls in the shared log.
        let marker = "revoked-\(Int(started * 1000))"
        let result = try ws.latchkey.run(["fetch", env.issuer + "/userinfo?probe=" + marker])
        #expect(result.exitCode == 10, "fetch: \(result) \(result.stderrText)")
        #expect(result.stdout.isEmpty)
        let log = ServerLog.read(env.proxyLog, since: started)
        #expect(
            log.filter { $0.path.hasSuffix("/userinfo") && $0.raw["query"]?["probe"]?.stringValue == marker }.map(\.status) == [401],
            "\(log.map(\.raw))")
        #expect(log.filter { $0.param("grant_type") == "refresh_token" }.isEmpty, "\(log.map(\.raw))")
        // Run after a forced refresh, the same revoked session is sign-in-required (exit 3).
        #expect(try ws.latchkey.run(["refresh"]).exitCode == 3)
        #expect(try ws.latchkey.run(["fetch", env.issuer + "/userinfo"]).exitCode == 3)
    }
}
