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

    static func provision(scenario: String, serverArguments: [String] = [], attempts: Int = 2,
                          environment extra: [String: String] = [:]) throws -> Run {
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
        for (k, v) in extra { env[k] = v }
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

    /// KIOSK_QR_FILE reaches `login --qr-file`: the image exists while the code waits, and is gone after.
    @Test("KIOSK_QR_FILE: the QR image is on disk while waiting, deleted after the sign-in")
    func qrFile() throws {
        let server = try ScriptedIdP(scenario: "ok", arguments: ["--interval", "1", "--approve-after", "4"])
        defer { server.stop() }
        let ws = try Workspace()
        let image = ws.directory.path + "/kiosk.svg"
        var env = ws.latchkey.environment
        env["LATCHKEY"] = ws.latchkey.binary
        env["KIOSK_ISSUER"] = server.issuer
        env["KIOSK_CLIENT_ID"] = "kiosk-client"
        env["KIOSK_START_COMMAND"] = "true"
        env["KIOSK_QR_FILE"] = image
        let child = try ChildProcess.spawn("/bin/bash", [PackagePaths.root() + "/device/kiosk-provision.sh"], environment: env)
        let deadline = ContinuousClock.now + .seconds(30)
        var seen = false
        while !seen && child.isRunning && ContinuousClock.now < deadline {
            seen = access(image, F_OK) == 0
            if !seen { usleep(50_000) }
        }
        let result = child.waitForExit(timeout: .seconds(60))
        #expect(result.exitCode == 0, "\(result) \(result.stdoutText) \(result.stderrText)")
        #expect(seen, "the QR image never appeared: \(result.stderrText)")
        #expect(access(image, F_OK) != 0, "the image outlived the login")
    }

    @Test("KIOSK_QR_FILE in a missing folder: exit 2 before any code is asked for, no retry")
    func qrFileInAMissingFolder() throws {
        let run = try Self.provision(scenario: "ok", environment: ["KIOSK_QR_FILE": "/nonexistent-kiosk-folder/code.png"])
        #expect(run.result.exitCode == 2, "\(run.result) \(run.result.stdoutText)")
        #expect(run.deviceRequests == 0)
        #expect(!run.started)
        #expect(run.result.stderrText.contains("latchkey: --qr-file: the folder /nonexistent-kiosk-folder does not exist"),
                "\(run.result.stderrText)")
    }

    @Test("expiry: a new code on every attempt, then exit 5")
    func expiry() throws {
        let run = try Self.provision(scenario: "expired-token", attempts: 2)
        #expect(run.result.exitCode == 5, "\(run.result) \(run.result.stdoutText)")
        #expect(!run.started)
        #expect(run.deviceRequests == 2, "device codes requested: \(run.deviceRequests)")
    }
}
