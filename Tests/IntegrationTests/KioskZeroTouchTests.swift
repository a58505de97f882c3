import Glibc
import LatchkeyTestSupport
import Testing

/// device/kiosk-provision.sh's zero-touch path against the real Glewlwyd over TLS: the factory
/// image's issuer and provisioning token → `register` → device login shown with a QR image (the
/// harness approves as the person would) → the kiosk's service starts; a second boot skips the
/// registration and signs in as the same client.
@Suite("Kiosk zero-touch provisioning at Glewlwyd", .serialized)
struct KioskZeroTouchTests {
    static func boot(_ idp: RegistrationIdP, _ ws: Workspace, marker: String, image: String) throws -> (ProcessResult, Bool) {
        var env = ws.latchkey.environment
        env["LATCHKEY"] = ws.latchkey.binary
        env["KIOSK_ISSUER"] = idp.issuerTLS
        env["KIOSK_PROVISIONING_TOKEN_FILE"] = idp.tokenFileTLS
        env["KIOSK_REGISTER_ARGS"] = "--registration-dialect glewlwyd"
        env["KIOSK_SCOPE"] = idp.base.scope
        env["KIOSK_QR_FILE"] = image
        env["KIOSK_START_COMMAND"] = "touch '\(marker)'"
        let child = try ChildProcess.spawn("/bin/bash", [PackagePaths.root() + "/device/kiosk-provision.sh"], environment: env)
        var imageSeen = false
        let deadline = ContinuousClock.now + .seconds(60)
        while ContinuousClock.now < deadline, let line = child.nextLine(timeout: .seconds(30)) {
            guard line.contains("enter the code:"), let code = line.split(separator: " ").last.map(String.init) else { continue }
            for _ in 0..<40 where !imageSeen {
                imageSeen = access(image, F_OK) == 0
                if !imageSeen { usleep(50_000) }
            }
            let approval = try idp.base.approve(userCode: code, issuer: idp.issuerTLS)
            #expect(approval.exitCode == 0, "approve.py: \(approval) \(approval.stdoutText)")
            break
        }
        return (child.waitForExit(timeout: .seconds(90)), imageSeen)
    }

    @Test func registersSignsInAndStartsTheKioskThenSkipsRegistrationOnTheNextBoot() throws {
        let idp = try RegistrationIdP.load()
        let ws = try Workspace.glewlwyd(idp.base)
        let marker = ws.directory.path + "/kiosk-started", image = ws.directory.path + "/kiosk.svg"
        let (first, seen) = try Self.boot(idp, ws, marker: marker, image: image)
        #expect(first.exitCode == 0, "\(first) \(first.stdoutText) \(first.stderrText)")
        #expect(first.stdoutText.contains("Registered as client "), "\(first.stdoutText)")
        #expect(PackagePaths.exists(marker), "the kiosk service was not started")
        #expect(seen, "the QR image was not on disk while the code waited")
        #expect(access(image, F_OK) != 0, "the QR image outlived the login")
        let token = try ws.latchkey.run(["token"])
        #expect(token.exitCode == 0, "\(token)")

        unlink(marker)
        _ = try ws.latchkey.run(["logout"])
        let (second, _) = try Self.boot(idp, ws, marker: marker, image: image)
        #expect(second.exitCode == 0, "\(second) \(second.stdoutText)")
        #expect(second.stdoutText.contains("already registered"), "\(second.stdoutText)")
        #expect(PackagePaths.exists(marker))
        // Decommissioning: the same command a fleet runs before a kiosk is retired.
        #expect(try ws.latchkey.run(["register", "--delete"]).exitCode == 0)
    }
}
