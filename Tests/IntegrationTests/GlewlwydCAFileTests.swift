import LatchkeyJOSE
import LatchkeyTestSupport
import Testing

/// `login --ca-file` at a TLS provider whose CA is private: the profile remembers the bundle by
/// path, so `fetch`, a `token` refresh, `refresh` and `logout` of that profile need neither
/// `--ca-file` nor a variable again.
@Suite("Glewlwyd: the CA file is remembered", .serialized)
struct GlewlwydRememberedCAFileTests {
    @Test("login --ca-file over TLS, then fetch, token --force-refresh, refresh and logout without it")
    func laterCommandsUseTheRememberedCAFile() throws {
        let env = try IntegrationEnvironment.load()
        // No LATCHKEY_CA_FILE, and an empty SSL_CERT_FILE: only the profile knows the test CA.
        let ws = try Workspace(extraEnvironment: ["SSL_CERT_FILE": ""])
        let started = wallClock()
        let outcome = try GlewlwydDeviceFlowTests.login(
            ws, env, issuer: env.issuerTLS, client: env.clientES256,
            extra: ["--dpop", "never"])
        try #require(outcome.result.exitCode == 0, "login: \(outcome.result) \(outcome.result.stderrText)")
        let status = try JSONParser().parseObject(try ws.latchkey.run(["status", "--json"]).stdout)
        #expect(status["ca_file"]?.stringValue == env.caFile, "\(status)")
        #expect(Array(status.keys.suffix(2)) == ["ca_file", "last_refresh"], "\(status.keys)")

        let fetched = try ws.latchkey.run(["fetch", env.issuerTLS + "/userinfo"])
        #expect(fetched.exitCode == 0, "fetch: \(fetched) \(fetched.stderrText)")
        let first = try ws.latchkey.run(["token"]).stdoutText
        let forced = try ws.latchkey.run(["token", "--force-refresh"])
        #expect(forced.exitCode == 0 && forced.stdoutText != first, "token --force-refresh: \(forced) \(forced.stderrText)")
        let refreshed = try ws.latchkey.run(["refresh"])
        #expect(refreshed.exitCode == 0, "refresh: \(refreshed) \(refreshed.stderrText)")
        let logout = try ws.latchkey.run(["logout"])
        #expect(logout.exitCode == 0 && !logout.stderrText.contains("warning"), "logout: \(logout) \(logout.stderrText)")
        let revoked = ServerLog.read(env.proxyLogTLS, since: started)
            .filter { $0.path.hasSuffix("/revoke") && $0.status == 200 }.map { $0.param("token_type_hint") ?? "?" }
        #expect(revoked == ["refresh_token", "access_token"], "successful revocations over TLS: \(revoked)")
    }
}
