import Glibc
import LatchkeyTestSupport
import Testing

/// `login` on a terminal, through script(1): the code, the countdown, and a QR code that an
/// external decoder reads back as the exact verification URL.
@Suite("latchkey login on a terminal")
struct TerminalLoginTests {
    @Test func qrCodeOnTheTerminalDecodesToTheVerificationURL() throws {
        let script = "/usr/bin/script"
        _ = try Requirement.requireOrSkip(access(script, X_OK) == 0 ? script : nil, "script(1) is not installed (bsdutils)")
        let zbarimg = try QRImageDecoder.zbarimg()
        let idp = try ScriptedIdP(scenario: "ok", arguments: ["--interval", "1", "--approve-after", "3"])
        defer { idp.stop() }
        try withCLI { cli, dir in
            let command = "\(cli.binary) --state-dir \(cli.stateDirectory) login --issuer \(idp.issuer) --client-id cli-test"
            let result = try ProcessRunner.run(
                script, ["-q", "-e", "-c", command, "/dev/null"],
                environment: cli.environment, timeout: .seconds(60))
            #expect(result.exitCode == 0, "\(result)")
            // "\r\n" is one Character, so drop carriage returns scalar by scalar.
            let screen = String(String.UnicodeScalarView(result.stdoutText.unicodeScalars.filter { $0 != "\r" }))
            #expect(screen.contains("WDJB-MJHT"))
            #expect(screen.contains("Waiting for approval"))  // the countdown line
            #expect(screen.contains("Signed in to \(idp.issuer)"))
            #expect(!screen.contains("\u{1B}[1m"))  // NO_COLOR: no bold
            let qrLines = screen.split(separator: "\n").map(String.init).filter { line in
                line.count >= 21 && line.unicodeScalars.allSatisfy { "█▀▄ ".unicodeScalars.contains($0) }
            }
            #expect(qrLines.count >= 12, "\(screen)")
            let file = dir.path + "/screen.pgm"
            let pgm = QRImageDecoder.pgm(fromTerminalText: qrLines.joined(separator: "\n"))
            let fd = open(file, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
            _ = pgm.withUnsafeBytes { Glibc.write(fd, $0.baseAddress, $0.count) }
            close(fd)
            let decoded = try ProcessRunner.run(zbarimg, ["--raw", "-q", file], timeout: .seconds(30))
            #expect(decoded.exitCode == 0, "\(decoded)")
            #expect(decoded.stdoutText == "\(idp.issuer)/device?user_code=WDJB-MJHT\n")
        }
    }

    @Test func noQROptionOnATerminal() throws {
        let script = "/usr/bin/script"
        _ = try Requirement.requireOrSkip(access(script, X_OK) == 0 ? script : nil, "script(1) is not installed (bsdutils)")
        let idp = try ScriptedIdP(scenario: "ok", arguments: ["--interval", "1", "--approve-after", "1"])
        defer { idp.stop() }
        try withCLI { cli, _ in
            let command = "\(cli.binary) --state-dir \(cli.stateDirectory) login --no-qr --issuer \(idp.issuer) --client-id c"
            let result = try ProcessRunner.run(
                script, ["-q", "-e", "-c", command, "/dev/null"],
                environment: cli.environment, timeout: .seconds(60))
            #expect(result.exitCode == 0, "\(result)")
            #expect(!result.stdoutText.contains("█"))
            #expect(result.stdoutText.contains("WDJB-MJHT"))
        }
    }
}
