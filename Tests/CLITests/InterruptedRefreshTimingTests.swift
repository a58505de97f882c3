import Glibc
import LatchkeyTestSupport
import Testing

/// SIGINT while a refresh is stalled at the server ends by unwinding: the cancellation reaches the
/// single-flight refresh and its HTTP request, so the process exits 130 at once. Before, the refresh
/// ran in a task that no cancellation reached, and only the 5 s watchdog (TerminationSignals'
/// grace period) ended the process.
@Suite struct InterruptedRefreshTimingTests {
    /// The longest a signalled process may take to exit: well under the 5 s watchdog.
    static let limit: Double = 1.5

    @Test(arguments: [["token", "--force-refresh"], ["refresh"]])
    func sigintDuringAStalledRefreshUnwindsWithoutTheWatchdog(arguments: [String]) throws {
        let idp = try ScriptedIdP(scenario: "slow-refresh", arguments: ["--interval", "1", "--approve-after", "1", "--refresh-delay", "30"])
        defer { idp.stop() }
        try withCLI { cli, _ in
            let login = try cli.run(["login", "--json", "--issuer", idp.issuer, "--client-id", "timing"], timeout: .seconds(60))
            try #require(login.exitCode == 0, "login: \(login)")
            let before = FileBytes.read(cli.stateDirectory + "/default.tokens")
            let child = try cli.start(arguments)
            // The scripted IdP logs the refresh on arrival, then sits on it for 30 s.
            let deadline = ContinuousClock.now + .seconds(20)
            while !idp.logLines().contains(where: { $0.contains("refresh-received") }) && ContinuousClock.now < deadline {
                usleep(20_000)
            }
            try #require(child.isRunning, "\(arguments) finished against a stalled server")
            let signalled = ContinuousClock.now
            child.send(signal: SIGINT)
            let result = child.waitForExit(timeout: .seconds(20))
            let took = ContinuousClock.now - signalled
            let seconds = Double(took.components.seconds) + Double(took.components.attoseconds) / 1e18
            print("\(arguments.joined(separator: " ")): exited \(result.exitCode.map(String.init) ?? "-") \(seconds) s after SIGINT")
            #expect(result.exitCode == 130, "\(result)")
            #expect(seconds < Self.limit, "took \(seconds) s after SIGINT: the watchdog, not the unwinding, ended it")
            #expect(result.stderrText.contains("interrupted by SIGINT"), "\(result.stderrText)")
            // Nothing was saved: the old session stands.
            #expect(FileBytes.read(cli.stateDirectory + "/default.tokens") == before, "the token file changed")
        }
    }
}
