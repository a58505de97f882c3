import LatchkeyTestSupport
import Testing

/// `credential get` for a DPoP-bound session: git sends its password as HTTP Basic, which cannot
/// carry a DPoP proof, so the helper gives git nothing (exit 0, one line on stderr) and git asks
/// its next helper; the bound token never leaves as a bearer password.
@Suite("latchkey binary: credential get for a DPoP-bound session", .serialized)
struct CredentialDPoPProcessTests {
    @Test func dpopBoundSessionGivesGitNothingAndSaysWhy() throws {
        try withScriptedIdP("dpop", ["--approve-after", "1"]) { idp, cli in
            try FetchProcessTests.login(cli, idp)
            let token = try #require(try cli.run(["token"]).stdoutLines.first)
            let host = "127.0.0.1:\(idp.port)"
            let r = try cli.run(["credential", "get"], stdin: Array("protocol=https\nhost=\(host)\n\n".utf8))
            #expect(r.exitCode == 0, "\(r)")
            #expect(r.stdout.isEmpty, "\(r.stdoutText)")
            let lines = r.stderrText.split(separator: "\n")
            #expect(lines.count == 1 && lines[0].contains("DPoP-bound") && lines[0].contains("--dpop never"), "\(r.stderrText)")
            #expect(!r.stderrText.contains(token))
            // The same profile still answers `token` and `fetch` (the DPoP paths), and a Bearer
            // session of the same server answers git (so the refusal is about the binding).
            #expect(try cli.run(["fetch", idp.issuer + "/resource"]).exitCode == 0)
        }
        try withScriptedIdP("ok", ["--approve-after", "1"]) { idp, cli in
            try FetchProcessTests.login(cli, idp)
            let r = try cli.run(["credential", "get"], stdin: Array("protocol=https\nhost=127.0.0.1:\(idp.port)\n\n".utf8))
            #expect(r.exitCode == 0 && r.stdoutText.hasPrefix("username=oauth2\npassword="), "\(r)")
        }
    }
}
