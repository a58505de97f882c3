import Glibc
import LatchkeyJOSE
import LatchkeyTestSupport
import Testing

/// Refresh, rotation, replay detection, revocation and cross-process refresh safety at Glewlwyd.
@Suite("Glewlwyd sessions", .serialized)
struct GlewlwydSessionTests {
    @Test("refresh rotates; replaying the old refresh token kills the session (exit 3)")
    func rotationAndReplay() throws {
        let env = try IntegrationEnvironment.load()
        let ws = try Workspace.glewlwyd(env)
        let login = try GlewlwydDeviceFlowTests.login(ws, env, issuer: env.issuer, client: env.clientRS256)
        try #require(login.result.exitCode == 0, "login: \(login.result)")
        let before = try ws.snapshot()  // holds the refresh token that is about to be rotated away
        let first = try ws.latchkey.run(["token"])
        let refreshed = try ws.latchkey.run(["refresh"])
        #expect(refreshed.exitCode == 0, "refresh: \(refreshed)")
        let second = try ws.latchkey.run(["token"])
        #expect(second.exitCode == 0 && second.stdoutText != first.stdoutText)

        let replay = try before.latchkey.run(["refresh"])
        #expect(replay.exitCode == 3, "replaying the rotated-away refresh token: \(replay)")
        // Glewlwyd's reuse detection also kills the newer token: sign-in needed again.
        let after = try ws.latchkey.run(["refresh"])
        #expect(after.exitCode == 3, "refresh after a replay: \(after)")
        let status = try ws.latchkey.run(["status"])
        #expect(status.exitCode == 3, "status after the session died: \(status)")
    }

    @Test("logout revokes at the server (RFC 7009) and deletes the local tokens")
    func logoutRevokes() throws {
        let env = try IntegrationEnvironment.load()
        let ws = try Workspace.glewlwyd(env)
        let started = wallClock()
        let login = try GlewlwydDeviceFlowTests.login(ws, env, issuer: env.issuer, client: env.clientPS256)
        try #require(login.result.exitCode == 0, "login: \(login.result)")
        let before = try ws.snapshot()
        let logout = try ws.latchkey.run(["logout"])
        #expect(logout.exitCode == 0, "logout: \(logout)")
        // Glewlwyd refuses client_id-only revocation from a public client (401); the client may try
        // that first. What counts: the refresh token, then the access token, each revoked with a 200.
        let revoked = ServerLog.read(env.proxyLog, since: started)
            .filter { $0.path.hasSuffix("/revoke") && $0.param("client_id") == env.clientPS256 && $0.status == 200 }
        #expect(
            revoked.map { $0.param("token_type_hint") ?? "?" } == ["refresh_token", "access_token"],
            "successful revocations: \(revoked.map(\.raw))")
        let token = try ws.latchkey.run(["token"])
        #expect(token.exitCode == 3, "token after logout: \(token)")
        let stale = try before.latchkey.run(["refresh"])
        #expect(stale.exitCode == 3, "the revoked refresh token still worked: \(stale)")
    }

    @Test("32 processes at expiry cause exactly one refresh request; all print the same valid token")
    func refreshContention() throws {
        let env = try IntegrationEnvironment.load()
        let ws = try Workspace.glewlwyd(env)
        let login = try GlewlwydDeviceFlowTests.login(ws, env, issuer: env.issuerShortToken, client: env.clientES256)
        try #require(login.result.exitCode == 0, "login: \(login.result)")
        let original = try ws.latchkey.run(["token"]).stdoutText
        // Wait until the token is inside a --min-ttl window that a freshly refreshed token is not.
        let ttl = env.shortAccessTokenTTL
        let minTTL = ttl * 2 / 3
        usleep(UInt32((ttl - minTTL + 1) * 1_000_000))
        let started = wallClock()
        let children = try (0..<32).map { _ in try ws.latchkey.start(["token", "--min-ttl", String(minTTL)]) }
        let results = children.map { $0.waitForExit(timeout: .seconds(60)) }
        let refreshes = ServerLog.read(env.proxyLog, since: started)
            .filter { $0.isRefresh && $0.path.contains("/shortlived/") }
        #expect(refreshes.count == 1, "refresh requests: \(refreshes.map(\.raw))")
        #expect(results.allSatisfy { $0.exitCode == 0 }, "\(results.filter { $0.exitCode != 0 })")
        let tokens = Set(results.map { $0.stdoutText.trimmed })
        #expect(
            tokens.count == 1 && tokens.first != original.trimmed && tokens.first?.isEmpty == false,
            "distinct tokens printed: \(tokens.count)")
        let later = try ws.latchkey.run(["refresh"])
        #expect(later.exitCode == 0, "a later refresh: \(later)")
    }
}
