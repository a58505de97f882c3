import Glibc
import LatchkeyTestSupport
import Testing

/// latchkey's tasks run on its own "latchkey-pool" threads, never on libdispatch's worker pools:
/// their monitor opens /proc/<tid>/stat every second and crashes the process where /proc is missing
/// (docs/deploy.md, "Running without /proc"). libdispatch names its workers after their queues
/// ("com.apple.root.default-qos", cut to 15 characters by the kernel), so a look at the threads of a
/// process that waits on the network, or sleeps between device-flow polls, tells the two apart.
@Suite struct ExecutorProcessTests {
    /// The thread names (`comm`) of a running process.
    static func threadNames(_ pid: pid_t) -> [String] {
        guard let directory = opendir("/proc/\(pid)/task") else { return [] }
        defer { closedir(directory) }
        var names: [String] = []
        while let entry = readdir(directory) {
            let tid = withUnsafeBytes(of: entry.pointee.d_name) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
            if tid.hasPrefix(".") { continue }
            guard let file = fopen("/proc/\(pid)/task/\(tid)/comm", "r") else { continue }
            var buffer = [CChar](repeating: 0, count: 64)
            if fgets(&buffer, 64, file) != nil {
                names.append(
                    String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
                        .trimmingSuffix("\n"))
            }
            fclose(file)
        }
        return names
    }

    static func expectNoLibdispatchWorkers(_ names: [String], sourceLocation: SourceLocation = #_sourceLocation) {
        #expect(names.contains("latchkey-pool"), "threads: \(names)", sourceLocation: sourceLocation)
        #expect(
            !names.contains { $0.contains("qos") || $0.contains("com.apple") }, "threads: \(names)",
            sourceLocation: sourceLocation)
    }

    @Test func aRefreshWaitingOnTheServerRunsOnLatchkeysOwnThreads() throws {
        let idp = try ScriptedIdP(
            scenario: "stall-forever",
            arguments: ["--interval", "1", "--approve-after", "1", "--fault-on", "refresh"])
        defer { idp.stop() }
        try withCLI { cli, _ in
            let login = try cli.run(["login", "--json", "--issuer", idp.issuer, "--client-id", "executor"], timeout: .seconds(60))
            try #require(login.exitCode == 0, "login: \(login)")
            let child = try cli.start(["token", "--force-refresh"])
            defer { child.terminate() }
            usleep(1_500_000)  // past libdispatch's first monitor tick; the request is stuck at the server
            try #require(child.isRunning, "the refresh finished against a stalled server")
            Self.expectNoLibdispatchWorkers(Self.threadNames(child.pid))
        }
    }

    @Test func devicePollingSleepsOnLatchkeysOwnThreads() throws {
        // Four polls one second apart: three Task.sleep in between, each a delayed job.
        let idp = try ScriptedIdP(scenario: "ok", arguments: ["--interval", "1", "--approve-after", "4"])
        defer { idp.stop() }
        try withCLI { cli, _ in
            let child = try cli.start(["login", "--json", "--issuer", idp.issuer, "--client-id", "executor"])
            defer { child.terminate() }
            usleep(2_500_000)  // two sleeps have ended, the third is pending
            try #require(child.isRunning, "login ended before approval")
            Self.expectNoLibdispatchWorkers(Self.threadNames(child.pid))
            let result = child.waitForExit(timeout: .seconds(30))
            #expect(result.exitCode == 0, "\(result)")
        }
    }
}

private extension String {
    func trimmingSuffix(_ suffix: String) -> String { hasSuffix(suffix) ? String(dropLast(suffix.count)) : self }
}
