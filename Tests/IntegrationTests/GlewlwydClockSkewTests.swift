import Glibc
import LatchkeyJOSE
import LatchkeyTestSupport
import Testing

/// Issue 27.2 against Glewlwyd: its token answers reach latchkey through a counting proxy whose
/// `Date` says a clock 600 s ahead (`counting_proxy.py --date-offset`), as a device that booted
/// ten minutes slow sees them. Only this test's token and device endpoints go through that proxy
/// (endpoint overrides), so no other suite sees the shifted clock.
@Suite("Glewlwyd: a provider clock ahead of the device's", .serialized)
struct GlewlwydClockSkewTests {
    /// `scheme://host:port` of `url`.
    static func origin(_ url: String) -> String {
        let parts = url.split(separator: "/", maxSplits: 3, omittingEmptySubsequences: false)  // "http:", "", "host:port", path
        return parts.count >= 3 ? parts[0] + "//" + parts[2] : url
    }

    @Test("login --json reports clock_skew 600 s before authorized; refresh prints the diagnosis; both succeed")
    func dateShiftedByAProxy() throws {
        let env = try IntegrationEnvironment.load()
        let ws = try Workspace.glewlwyd(env)
        let log = ws.directory.path + "/shifted.jsonl"
        let origin = Self.origin(env.issuer)
        let proxy = try ChildProcess.spawn(
            env.python,
            [
                PackagePaths.harness() + "/idp/counting_proxy.py", "--listen", "0",
                "--upstream", origin, "--log", log, "--date-offset", "600"
            ],
            environment: HostEnvironment.current)
        defer { proxy.terminate() }
        let banner = try #require(proxy.nextLine(timeout: .seconds(20)), "the shifting proxy did not start")
        let port = try #require(banner.split(separator: " ").first { $0.hasPrefix("127.0.0.1:") }?.split(separator: ":").last)
        let shifted = "http://127.0.0.1:" + port

        let discovery = try ws.latchkey.run(["discover", "--issuer", env.issuer])
        try #require(discovery.exitCode == 0, "\(discovery)")
        let metadata = try JSONParser().parseObject(Array(discovery.stdoutText.utf8))
        func viaProxy(_ member: String) throws -> String {
            let url = try #require(metadata[member]?.stringValue, "\(member)")
            try #require(url.hasPrefix(origin), "\(url)")
            return shifted + url.dropFirst(origin.count)
        }
        let login = try GlewlwydDeviceFlowTests.login(
            ws, env, issuer: env.issuer, client: env.clientRS256,
            extra: [
                "--token-endpoint", try viaProxy("token_endpoint"),
                "--device-authorization-endpoint", try viaProxy("device_authorization_endpoint")
            ])
        #expect(login.result.exitCode == 0, "login: \(login.result)")
        let names = login.eventNames
        let warning = try #require(
            login.events.first { $0["event"]?.stringValue == "warning" && $0["code"]?.stringValue == "clock_skew" },
            "events: \(names)")
        let offset = try #require(warning["offset_seconds"]?.int64Value)
        #expect((598...602).contains(offset), "\(offset)")
        #expect(warning["message"]?.stringValue == "the local clock is \(offset) s behind the provider's; check NTP")
        #expect(names.firstIndex(of: "warning")! < names.firstIndex(of: "authorized")!, "\(names)")

        let refresh = try ws.latchkey.run(["refresh"])
        #expect(refresh.exitCode == 0, "\(refresh)")
        #expect(refresh.stderrText.contains("latchkey: warning: the local clock is "), "\(refresh.stderrText)")
        #expect(ServerLog.read(log).filter { $0.isRefresh }.map(\.status) == [200], "the refresh went through the shifting proxy")
    }
}
