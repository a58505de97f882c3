import Glibc
import LatchkeyJOSE
import LatchkeyTestSupport
import Testing

/// Forced refreshes under contention, and DPoP nonces remembered between processes, at Glewlwyd;
/// counted server-side in the harness proxy's request log.
@Suite("Glewlwyd forced refreshes and remembered nonces", .serialized)
struct GlewlwydContentionAndNonceTests {
    @Test("8 concurrent token --force-refresh: those that find the token replaced while they waited use it")
    func forcedRefreshContention() throws {
        let env = try IntegrationEnvironment.load()
        let ws = try Workspace.glewlwyd(env)
        // PS256: the proxy log is shared with the suites running beside this one, and the ES256
        // client's refreshes (git helper, CA file, fetch) would be counted here, and ours there.
        let login = try GlewlwydDeviceFlowTests.login(ws, env, issuer: env.issuer, client: env.clientPS256)
        try #require(login.result.exitCode == 0, "login: \(login.result)")
        let original = try ws.latchkey.run(["token"]).stdoutText.trimmed
        let started = wallClock()
        let children = try (0..<8).map { _ in try ws.latchkey.start(["token", "--force-refresh"]) }
        let results = children.map { $0.waitForExit(timeout: .seconds(60)) }
        let refreshes = ServerLog.read(env.proxyLog, since: started)
            .filter { $0.isRefresh && $0.param("client_id") == env.clientPS256 && $0.status == 200 }
        #expect(results.allSatisfy { $0.exitCode == 0 }, "\(results.filter { $0.exitCode != 0 })")
        // Eight sequential refreshes before; now the processes that waited take the replaced token.
        #expect(refreshes.count < 8 && refreshes.count >= 1, "refresh requests: \(refreshes.count)")
        let tokens = Set(results.map { $0.stdoutText.trimmed })
        #expect(!tokens.contains(original) && !tokens.contains(""), "a forced refresh printed the old token")
        #expect(tokens.count == refreshes.count, "one distinct token per refresh: \(tokens.count) vs \(refreshes.count)")
        print("forced-refresh contention: 8 processes, \(refreshes.count) refresh request(s)")
        // The stored refresh token is the newest: a later refresh works.
        let later = try ws.latchkey.run(["refresh"])
        #expect(later.exitCode == 0, "a later refresh: \(later)")
    }

    @Test("dpopnonce: a second latchkey fetch of /userinfo sends the remembered nonce first ([200], not [401, 200])")
    func fetchRemembersTheResourceNonce() throws {
        let dpop = try DPoPIdP.load()
        let session = try GlewlwydDPoPTests.login(dpop, issuer: dpop.issuerNonce)
        let url = GlewlwydDPoPTests.userinfo(dpop.issuerNonce)
        let first = try session.ws.latchkey.run(["fetch", url])
        #expect(first.exitCode == 0, "first fetch: \(first) \(first.stderrText)")
        let started = wallClock()
        let second = try session.ws.latchkey.run(["fetch", url])
        #expect(second.exitCode == 0, "second fetch: \(second) \(second.stderrText)")
        let hits = ServerLog.read(dpop.base.proxyLog, since: started).filter { $0.path.hasSuffix("/dpopnonce/userinfo") }
        #expect(hits.compactMap(\.status) == [200], "\(hits.map(\.raw))")
    }
}
