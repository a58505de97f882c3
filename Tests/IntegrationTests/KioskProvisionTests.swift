import Glibc
import LatchkeyTestSupport
import Testing

/// device/kiosk-provision.sh, run non-interactively against the scripted provider.
@Suite("Kiosk provisioning")
struct KioskProvisionTests {
    struct Run {
        let result: ProcessResult
        let started: Bool
        let deviceRequests: Int
    }

    static func provision(scenario: String, serverArguments: [String] = [], attempts: Int = 2) throws -> Run {
        let server = try ScriptedIdP(scenario: scenario, arguments: serverArguments)
        defer { server.stop() }
        let ws = try Workspace()
        let marker = ws.directory.path + "/kiosk-started"
        var env = ws.latchkey.environment
        env["LATCHKEY"] = ws.latchkey.binary
        env["KIOSK_ISSUER"] = server.issuer
        env["KIOSK_CLIENT_ID"] = "kiosk-client"
        env["KIOSK_MAX_ATTEMPTS"] = String(attempts)
        env["KIOSK_RETRY_DELAY"] = "0"
        env["KIOSK_START_COMMAND"] = "touch '\(marker)'"
        let script = PackagePaths.root() + "/device/kiosk-provision.sh"
        let result = try ProcessRunner.run("/bin/bash", [script], environment: env, timeout: .seconds(120))
        let requests = ServerLog.read(server.logPath).filter { $0.path == "/device_authorization" }.count
        return Run(result: result, started: PackagePaths.exists(marker), deviceRequests: requests)
    }

    @Test("success: signs in, shows the code, starts the kiosk service")
    func success() throws {
        let run = try Self.provision(scenario: "ok")
        #expect(run.result.exitCode == 0, "\(run.result) \(run.result.stdoutText)")
        #expect(run.started, "the kiosk service was not started")
        #expect(run.result.stdoutText.contains("WDJB-MJHT"), "code not shown: \(run.result.stdoutText)")
    }

    @Test("denial: exit 4, kiosk not started, no retry")
    func denial() throws {
        let run = try Self.provision(scenario: "denied")
        #expect(run.result.exitCode == 4, "\(run.result) \(run.result.stdoutText)")
        #expect(!run.started)
        #expect(run.deviceRequests == 1)
        #expect(run.result.stdoutText.contains("declined"))
    }

    @Test("expiry: a new code on every attempt, then exit 5")
    func expiry() throws {
        let run = try Self.provision(scenario: "expired-token", attempts: 2)
        #expect(run.result.exitCode == 5, "\(run.result) \(run.result.stdoutText)")
        #expect(!run.started)
        #expect(run.deviceRequests == 2, "device codes requested: \(run.deviceRequests)")
    }
}
