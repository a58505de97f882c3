import Glibc
import LatchkeyJOSE
import LatchkeyTestSupport
import Testing

extension GlewlwydDeviceFlowTests {
    /// `slow_down` from the real server, and obeyed. The counting proxy in front of the TLS instance
    /// sends one injected copy of the client's first poll just before it (counting_proxy.py), so
    /// Glewlwyd itself answers the client's poll with `slow_down`. The client must then add 5 s to
    /// the interval (RFC 8628 §3.5; Glewlwyd sends no new interval) and still get its token.
    /// Approval waits until the `slow_down` event, so the injected copy cannot take the token.
    @Test("slow_down provoked at Glewlwyd (over TLS) and obeyed: +5 s, then the token")
    func slowDownProvokedAndObeyed() throws {
        let env = try IntegrationEnvironment.load()
        let ws = try Workspace.glewlwyd(env)
        let client = env.clientRS256
        let marker = env.proxyLogTLS + ".provoke-slow-down"
        let fd = open(marker, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
        try #require(fd >= 0, "cannot write \(marker)")
        _ = client.withCString { write(fd, $0, strlen($0)) }
        close(fd)
        defer { unlink(marker) }
        let started = wallClock()

        let child = try ws.latchkey.start([
            "login", "--json", "--issuer", env.issuerTLS, "--client-id", client,
            "--scope", env.scope, "--ca-file", env.caFile
        ])
        defer { child.terminate() }
        var userCode: String?
        var slowDown: JSONValue?
        let deadline = ContinuousClock.now + .seconds(60)
        while slowDown == nil, ContinuousClock.now < deadline, child.isRunning || userCode == nil {
            guard let line = child.nextLine(timeout: .milliseconds(500)), let event = try? JSONParser().parse(line) else { continue }
            switch event["event"]?.stringValue {
            case "verification": userCode = event["user_code"]?.stringValue
            case "slow_down": slowDown = event
            default: break
            }
        }
        let code = try #require(userCode, "no verification event")
        let slow = try #require(slowDown, "the client never reported slow_down")
        #expect(slow["interval"]?.int64Value == Int64(env.deviceInterval + 5), "slow_down event: \(slow.jsonText)")
        let approval = try env.approve(userCode: code, issuer: env.issuerTLS)
        #expect(approval.exitCode == 0, "approve.py: \(approval)")
        let result = child.waitForExit(timeout: .seconds(60))
        #expect(result.exitCode == 0, "login: \(result)")
        #expect(JSONLines.names(JSONLines.events(result)).last == "authorized")

        // Server side: Glewlwyd really said slow_down to the client's own poll, and the client's
        // next poll came at least interval + 5 s after that answer arrived.
        let polls = ServerLog.read(env.proxyLogTLS, since: started)
            .filter { $0.isDevicePoll && $0.param("client_id") == client }
            .sorted { $0.t < $1.t }
        #expect(polls.contains { $0.raw["injected"]?.boolValue == true }, "the proxy injected no poll")
        let own = polls.filter { $0.raw["injected"]?.boolValue != true }
        let slowIndex = try #require(own.firstIndex { $0.error == "slow_down" }, "Glewlwyd never said slow_down: \(own.map(\.raw))")
        try #require(slowIndex + 1 < own.count, "no poll after slow_down")
        let gap = own[slowIndex + 1].t - own[slowIndex].tDone
        #expect(gap >= Double(env.deviceInterval + 5) - 0.05, "next poll \(gap) s after slow_down")
        #expect(own[(slowIndex + 1)...].allSatisfy { $0.error != "slow_down" }, "slow_down earned again: \(own.map(\.raw))")
    }
}
