import Glibc
import LatchkeyJOSE
import LatchkeyTestSupport
import Testing

/// The scripted provider's refresh requests so far.
private func refreshes(_ idp: ScriptedIdP) throws -> Int {
    try idp.logLines().map { try JSONParser().parse($0) }
        .filter { $0["path"] == .string("/token") && $0["params"]?["grant_type"] == .string("refresh_token") }.count
}

/// Issue 27.11: tokens that live less than the default `--min-ttl` (60 s).
@Suite("latchkey token with short-lived tokens", .serialized)
struct ShortTokenProcessTests {
    @Test(
        "30 s tokens: the default margin is capped at half the lifetime, so token does not refresh on every call; an explicit --min-ttl is used as given"
    )
    func defaultMarginIsCapped() throws {
        try withScriptedIdP("ok", ["--at-ttl", "30", "--approve-after", "1"]) { idp, cli in
            let login = try cli.run(["login", "--json", "--issuer", idp.issuer, "--client-id", "cli-test"], timeout: .seconds(60))
            try #require(login.exitCode == 0, "\(login)")
            let first = try cli.run(["token"])
            let second = try cli.run(["token"])
            #expect(first.exitCode == 0 && second.exitCode == 0, "\(first) \(second)")
            #expect(try refreshes(idp) == 0, "the default --min-ttl refreshed a 30 s token that had more than 15 s left")
            #expect(first.stdoutText == second.stdoutText)

            let explicit = try cli.run(["token", "--min-ttl", "60"])
            #expect(explicit.exitCode == 0, "\(explicit)")
            #expect(try refreshes(idp) == 1, "an explicit --min-ttl 60 must refresh a token with less than 60 s left")
            #expect(explicit.stdoutText != first.stdoutText)
        }
    }
}

/// Issue 27.12: `--passphrase-file` holds a secret and follows the key-file rules.
@Suite("latchkey --passphrase-file permissions", .serialized)
struct PassphraseFilePermissionProcessTests {
    @Test("a passphrase file readable by others: exit 9 with one line, before anything is sent")
    func groupReadableIsRefused() throws {
        try withScriptedIdP("ok", ["--approve-after", "1"]) { idp, cli in
            let file = cli.stateDirectory + "-pass"
            #expect(FileText.write("correct horse\n", to: file, mode: 0o644))
            chmod(file, 0o644)
            defer { unlink(file) }
            let login = try cli.run(
                [
                    "login", "--key-source", "passphrase", "--passphrase-file", file,
                    "--issuer", idp.issuer, "--client-id", "cli-test"
                ], timeout: .seconds(60))
            #expect(login.exitCode == 9, "\(login)")
            let lines = login.stderrText.split(separator: "\n").map(String.init)
            #expect(
                lines.first
                    == "latchkey: refusing --passphrase-file \(file): mode 0644 lets group or others access it (expected 0600; run chmod 600)",
                "\(login.stderrText)")
            #expect(lines.dropFirst().first?.hasPrefix("hint: ") == true, "\(login.stderrText)")
            #expect(
                idp.logLines().filter { $0.contains("\"/device_authorization\"") || $0.contains("\"/token\"") }.isEmpty,
                "requests were sent: \(idp.logLines())")
        }
    }

    @Test("a passphrase file owned by another user: exit 9 with one line")
    func otherOwnerIsRefused() throws {
        guard geteuid() == 0 else {
            throw try Requirement.missing("chown to another user needs root")
        }
        try withScriptedIdP("ok", ["--approve-after", "1"]) { idp, cli in
            let file = cli.stateDirectory + "-pass"
            #expect(FileText.write("correct horse\n", to: file))
            defer { unlink(file) }
            try #require(chown(file, 1001, 1001) == 0)
            let login = try cli.run(
                [
                    "login", "--key-source", "passphrase", "--passphrase-file", file,
                    "--issuer", idp.issuer, "--client-id", "cli-test"
                ], timeout: .seconds(60))
            #expect(login.exitCode == 9, "\(login)")
            #expect(
                login.stderrText.split(separator: "\n").first.map(String.init)
                    == "latchkey: refusing --passphrase-file \(file): owned by uid 1001, expected uid 0", "\(login.stderrText)")
        }
    }
}
