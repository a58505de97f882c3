import Glibc
import LatchkeyJOSE
import LatchkeyTestSupport
import Testing

/// The device flow's cross-device safety (RFC 8628 §5.4) and `--qr-file`, through the binary.
@Suite("latchkey login: cross-device safety and --qr-file", .serialized)
struct CrossDeviceProcessTests {
    @Test func theProviderIsNamedBesideTheCode() throws {
        try withScriptedIdP("ok", ["--approve-after", "1"]) { idp, cli in
            let result = try cli.run(["login", "--issuer", idp.issuer, "--client-id", "c"], timeout: .seconds(60))
            #expect(result.exitCode == 0, "\(result)")
            #expect(result.stderrText.contains("enter the code WDJB-MJHT (signing in to 127.0.0.1)"), "\(result)")
            #expect(!result.stderrText.contains("warning: the verification address"), "\(result)")
        }
    }

    @Test func aVerificationPageOnAnotherSiteIsWarnedAbout() throws {
        try withScriptedIdP("verification-uri-other-site", ["--approve-after", "1"]) { idp, cli in
            let human = try cli.run(["login", "--issuer", idp.issuer, "--client-id", "c"], timeout: .seconds(60))
            #expect(human.exitCode == 0, "\(human)")
            #expect(
                human.stderrText.contains(
                    "latchkey: warning: the verification address is on device-login.example.net, not on the site of 127.0.0.1"),
                "\(human)")
            let json = try cli.run(["login", "--json"], timeout: .seconds(60))
            let verification = try #require(try LoginProcessTests.events(json).first)
            #expect(verification["verification_host_matches_issuer"] == .bool(false))
            #expect(verification["issuer"] == .string(idp.issuer))
        }
    }

    @Test func theQRFileExistsWhileWaitingAndIsGoneAfter() throws {
        let zbarimg = try QRImageDecoder.zbarimg()
        _ = zbarimg
        for ending in ["approved", "interrupted"] {
            try withScriptedIdP("ok", ["--approve-after", ending == "approved" ? "4" : "1000"]) { idp, cli in
                let file = cli.stateDirectory + "-kiosk.png"
                let child = try cli.start(["login", "--json", "--issuer", idp.issuer, "--client-id", "c", "--qr-file", file])
                let first = try #require(child.nextLine(timeout: .seconds(30)))
                #expect(first.contains("\"verification\""))
                let decoded = try QRImageDecoder.zbarimg(file: file)
                #expect(decoded.stdoutText == idp.issuer + "/device?user_code=WDJB-MJHT\n", "\(decoded)")
                if ending == "interrupted" {
                    _ = child.nextLine(timeout: .seconds(10))
                    child.send(signal: SIGINT)
                }
                let result = child.waitForExit(timeout: .seconds(60))
                #expect(result.exitCode == (ending == "approved" ? 0 : 130), "\(result)")
                #expect(access(file, F_OK) != 0, "the image of a used or abandoned code is deleted (\(ending))")
            }
        }
    }

    /// A `--qr-file` whose folder is missing or not a folder: exit 2 before any request.
    @Test func aQRFileInAMissingFolderIsExitTwoBeforeAnythingIsSent() throws {
        try withScriptedIdP("ok", ["--approve-after", "1"]) { idp, cli in
            let missing = cli.stateDirectory + "-nowhere"
            #expect(FileText.write("x", to: cli.stateDirectory + "-plain"))
            for (file, line) in [
                (missing + "/kiosk.svg", "latchkey: --qr-file: the folder \(missing) does not exist"),
                (cli.stateDirectory + "-plain/kiosk.png", "latchkey: --qr-file: \(cli.stateDirectory)-plain is not a folder")
            ] {
                let result = try cli.run(["login", "--issuer", idp.issuer, "--client-id", "c", "--qr-file", file])
                #expect(result.exitCode == 2, "\(result)")
                #expect(result.stderrText.split(separator: "\n").first.map(String.init) == line, "\(result.stderrText)")
                expectErrorLines(result)
            }
            #expect(idp.logLines().isEmpty, "something was sent: \(idp.logLines())")
        }
    }

    @Test func aFailedLoginDeletesTheQRFile() throws {
        try withScriptedIdP("denied", ["--approve-after", "2"]) { idp, cli in
            let file = cli.stateDirectory + "-kiosk.svg"
            let result = try cli.run(["login", "--issuer", idp.issuer, "--client-id", "c", "--qr-file", file], timeout: .seconds(60))
            #expect(result.exitCode == 4, "\(result)")
            #expect(access(file, F_OK) != 0)
            #expect(idp.logLines().contains { $0.contains("\"denied\"") })
        }
    }
}
