import Glibc
import LatchkeyJOSE
import LatchkeyTestSupport
import Testing

/// Issue 27.1: a refresh on a full disk must not lose the session. Glewlwyd's refresh tokens are
/// one-use and rotate, so a refresh whose answer cannot be saved leaves a dead token behind.
@Suite("Glewlwyd: refresh on a full disk", .serialized)
struct GlewlwydDiskFullTests {
    @Test("a full state folder: refresh exits 9 sending nothing, status says so, and after freeing space the refresh token still works")
    func fullDiskKeepsTheSession() throws {
        let env = try IntegrationEnvironment.load()
        let ws = try Workspace.glewlwyd(env)
        let disk = try SmallTmpfs(kilobytes: 512, mountPoint: ws.latchkey.stateDirectory)
        defer { disk.unmount() }
        let login = try GlewlwydDeviceFlowTests.login(ws, env, issuer: env.issuer, client: env.clientRS256)
        try #require(login.result.exitCode == 0, "login: \(login.result)")

        try disk.fill()
        let started = wallClock()
        let refresh = try ws.latchkey.run(["refresh"])
        #expect(refresh.exitCode == 9, "refresh on a full disk: \(refresh)")
        let firstLine = refresh.stderrText.split(separator: "\n").first.map(String.init) ?? ""
        #expect(
            firstLine.hasPrefix("latchkey: cannot reserve space for ") && firstLine.contains("disk full")
                && firstLine.hasSuffix("the refresh was not attempted and the session is intact"), "\(firstLine)")
        let sent = ServerLog.read(env.proxyLog, since: started).filter { $0.isRefresh }
        #expect(sent.isEmpty, "refresh requests sent on a full disk: \(sent.map(\.raw))")

        let status = try ws.latchkey.run(["status"])
        #expect(status.exitCode == 0, "\(status)")
        #expect(status.stdoutText.contains("refresh token: held"), "\(status.stdoutText)")
        let lastRefresh = status.stdoutLines.first { $0.hasPrefix("last refresh:") } ?? ""
        #expect(lastRefresh.contains(" failed at ") && lastRefresh.contains("disk full"), "\(status.stdoutText)")
        let json = try ws.latchkey.run(["status", "--json"])
        let object = try JSONParser().parseObject(Array(json.stdoutText.utf8))
        #expect(object.keys.last == "last_refresh", "\(object.keys)")
        #expect(object["last_refresh"]?["ok"]?.boolValue == false, "\(json.stdoutText)")
        #expect(object["last_refresh"]?["error"]?.stringValue?.contains("disk full") == true, "\(json.stdoutText)")

        disk.free()
        let after = wallClock()
        let retry = try ws.latchkey.run(["refresh"])
        #expect(retry.exitCode == 0, "refresh after space was freed (the provider must still accept the refresh token): \(retry)")
        let accepted = ServerLog.read(env.proxyLog, since: after).filter { $0.isRefresh }
        #expect(accepted.map(\.status) == [200], "\(accepted.map(\.raw))")
        let healed = try ws.latchkey.run(["status", "--json"])
        let healedObject = try JSONParser().parseObject(Array(healed.stdoutText.utf8))
        #expect(healedObject["last_refresh"]?["ok"]?.boolValue == true, "\(healed.stdoutText)")
    }
}
