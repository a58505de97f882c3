import Glibc
import LatchkeyJOSE
import LatchkeyTestSupport
import Testing

/// Network faults and hostile responses (issue 9), each run through the device flow, discovery,
/// JWKS and refresh. The client must recover within its deadline or end with a documented exit
/// code: never crash, never hang past the deadline, never damage the token file.
@Suite("Fault injection")
struct FaultInjectionTests {
    struct Case: CustomStringConvertible, Sendable {
        let fault: String
        let target: String  // --fault-on: device, token, discovery, jwks, refresh
        let allowed: Set<Int32>  // documented outcomes for this fault at this place
        var description: String { "\(fault) on \(target)" }
    }

    /// Transient faults (drops, 5xx) are retried with backoff, so the login recovers (0).
    /// Malformed answers are protocol violations (7) — or, for JWKS, a failed verification (8).
    static let cases: [Case] = {
        var all: [Case] = []
        for target in ["device", "token", "discovery", "jwks"] {
            // 5xx while polling must be retried until the deadline (overview.md), so the login recovers.
            let transientRecovers: Set<Int32> = target == "token" ? [0] : [0, 6, 7]
            for fault in ["status-500", "status-502", "status-503", "status-503-retry-after"] {
                all.append(Case(fault: fault, target: target, allowed: transientRecovers))
            }
            // A body cut short by the server is a hostile response to LatchkeyHTTP (a protocol
            // violation, 7) rather than a retryable network error; either ending is documented.
            all.append(Case(fault: "drop-mid-response", target: target, allowed: [0, 6, 7]))
            // jwks: a key set that cannot be read means the ID token cannot be verified (8) or the
            // server broke the protocol (7). An oversized body may also end as an I/O failure (6).
            // discovery: a bad OIDC document may be recovered from through the RFC 8414 fallback (0).
            let malformed: Set<Int32> = target == "jwks" ? [7, 8] : target == "discovery" ? [0, 7] : [7]
            for fault in ["non-json-body", "duplicate-json-keys", "wrong-content-type"] {
                all.append(Case(fault: fault, target: target, allowed: malformed))
            }
            // An oversized answer is cut off at the size limit; like a dropped connection it may be
            // retried (a poll or a device request is safe to repeat), so recovery (0) is allowed too.
            all.append(Case(fault: "oversized-body", target: target, allowed: malformed.union([0, 6])))
        }
        return all
    }()

    @Test("login survives or fails cleanly", arguments: cases)
    func loginUnderFault(_ c: Case) throws {
        let server = try ScriptedIdP(scenario: c.fault, arguments: ["--fault-on", c.target, "--expires-in", "20"])
        defer { server.stop() }
        let ws = try Workspace()
        let outcome = try ScriptedProviderTests.login(server, ws, timeout: .seconds(60))
        let r = outcome.result
        #expect(!r.timedOut && r.terminatingSignal == nil, "\(c): crashed or hung: \(r)")
        #expect(r.exitCode.map { c.allowed.contains($0) } == true, "\(c): \(r) events \(outcome.eventNames)")
        #expect(r.elapsed < .seconds(20 + 15), "\(c): past the device-code deadline: \(r.elapsed)")
        let faults = ServerLog.read(server.logPath).filter { $0.event?.hasPrefix("fault:") == true }
        #expect(faults.count == 1, "\(c): the fault was not exercised: \(faults.count)")
        FaultTable.record(flow: "login", c: c, result: r)
    }

    @Test("stalled token endpoint: the login ends by its deadline", arguments: ["token", "device"])
    func stall(target: String) throws {
        let server = try ScriptedIdP(scenario: "stall-forever", arguments: ["--fault-on", target, "--expires-in", "8"])
        defer { server.stop() }
        let ws = try Workspace()
        let outcome = try ScriptedProviderTests.login(server, ws, extra: ["--timeout", "8"], timeout: .seconds(90))
        let r = outcome.result
        #expect(!r.timedOut && r.terminatingSignal == nil, "hung: \(r)")
        #expect(r.exitCode == 5 || r.exitCode == 6 || r.exitCode == 0, "stall on \(target): \(r)")
        // The deadline (--timeout 8, expires_in 8) bounds the whole login, including a request in flight.
        #expect(r.elapsed < .seconds(8 + 6), "stall on \(target) took \(r.elapsed), past the 8 s deadline")
        FaultTable.record(flow: "login", c: .init(fault: "stall-forever", target: target, allowed: [0, 5, 6]), result: r)
    }

    @Test(
        "refresh under fault keeps the token file intact",
        arguments: [
            "drop-mid-response", "status-503",
            "non-json-body", "duplicate-json-keys"
        ])
    func refreshUnderFault(fault: String) throws {
        let server = try ScriptedIdP(scenario: fault, arguments: ["--fault-on", "refresh"])
        defer { server.stop() }
        let ws = try Workspace()
        #expect(try ScriptedProviderTests.login(server, ws).result.exitCode == 0)
        let before = try ws.latchkey.run(["token"])
        let refresh = try ws.latchkey.run(["refresh"], timeout: .seconds(60))
        #expect(!refresh.timedOut && refresh.terminatingSignal == nil, "\(refresh)")
        #expect([0, 6, 7].contains(refresh.exitCode ?? -1), "refresh under \(fault): \(refresh)")
        // Whatever happened, the stored session still opens and still holds a token.
        let after = try ws.latchkey.run(["token"])
        #expect(after.exitCode == 0, "token file damaged after \(fault): \(after)")
        if refresh.exitCode != 0 {
            #expect(after.stdoutText == before.stdoutText, "a failed refresh must leave the old token")
        }
        FaultTable.record(flow: "refresh", c: .init(fault: fault, target: "refresh", allowed: [0, 6, 7]), result: refresh)
    }
}

/// Appends "fault | flow | exit" rows to `$LATCHKEY_FAULT_TABLE` when set (Tests/run-all.sh prints
/// it as the fault × flow table for docs/security.md; it is produced by the run, not by hand).
enum FaultTable {
    static func record(flow: String, c: FaultInjectionTests.Case, result: ProcessResult) {
        guard let path = HostEnvironment.current["LATCHKEY_FAULT_TABLE"], !path.isEmpty else { return }
        let outcome = result.timedOut ? "hung (killed)" : result.exitCode.map { "exit \($0)" } ?? "signal \(result.terminatingSignal ?? 0)"
        let row = "| \(c.fault) | \(flow) (\(c.target)) | \(outcome) | \(result.elapsed) |\n"
        guard let f = fopen(path, "a") else { return }
        fputs(row, f)
        fclose(f)
    }
}
