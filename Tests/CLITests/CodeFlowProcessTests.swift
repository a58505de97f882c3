import Glibc
import LatchkeyJOSE
import LatchkeyTestSupport
import Testing

/// The paste flow (authorization code + PKCE, redirect URL pasted on stdin) and `--verbose`
/// redaction, against the scripted server, whose /authorize approves at once and redirects.
@Suite("latchkey login --flow paste, and --verbose")
struct CodeFlowProcessTests {
    @Test func pasteFlowThenVerboseRefreshIsRedacted() throws {
        let curl = try Requirement.requireOrSkip(access("/usr/bin/curl", X_OK) == 0 ? "/usr/bin/curl" : nil,
                                                 "curl is not installed")
        let idp = try ScriptedIdP(scenario: "ok")
        defer { idp.stop() }
        try withCLI { cli, _ in
            let child = try cli.start(["login", "--json", "--flow", "paste", "--issuer", idp.issuer, "--client-id", "cli-test"],
                                      stdin: .pipe)
            let first = try #require(child.nextLine(timeout: .seconds(30)))
            let event = try JSONParser().parseObject(Array(first.utf8))
            #expect(event.keys == ["event", "url"] && event["event"] == "authorization_url")
            let url = try #require(event["url"]?.stringValue)
            #expect(url.contains("code_challenge_method=S256") && url.contains("state=") && url.contains("nonce="))
            // The "browser": follow /authorize up to the redirect, and paste where it points.
            let browser = try ProcessRunner.run(curl, ["-s", "-o", "/dev/null", "-w", "%{redirect_url}", url])
            let redirect = browser.stdoutText
            #expect(redirect.contains("code=") && redirect.contains("state="), "\(browser)")
            #expect(child.write(Array((redirect + "\n").utf8)))
            child.closeStandardInput()
            let result = child.waitForExit(timeout: .seconds(30))
            #expect(result.exitCode == 0, "\(result)")
            #expect(result.stdoutLines.last?.contains("\"event\":\"authorized\"") == true)
            let profile = try JSONParser().parseObject(Array((FileText.read(cli.stateDirectory + "/profiles/default.json") ?? "").utf8))
            #expect(profile["client_id"] == "cli-test")

            let token = try cli.run(["token"]).stdoutText.dropLast()
            let verbose = try cli.run(["-v", "refresh"])
            #expect(verbose.exitCode == 0, "\(verbose)")
            #expect(verbose.stderrText.contains("> POST \(idp.issuer)/token"))
            #expect(verbose.stderrText.contains("[REDACTED]"))
            #expect(!verbose.stderrText.contains(String(token)))
            let newToken = try cli.run(["token"]).stdoutText.dropLast()
            #expect(!verbose.stderrText.contains(String(newToken)))
        }
    }

    @Test func pasteFlowWithWrongStateIsRefused() throws {
        let idp = try ScriptedIdP(scenario: "ok")
        defer { idp.stop() }
        try withCLI { cli, _ in
            let child = try cli.start(["login", "--json", "--flow", "paste", "--issuer", idp.issuer, "--client-id", "c"], stdin: .pipe)
            #expect(child.nextLine(timeout: .seconds(30)) != nil)
            #expect(child.write(Array("http://127.0.0.1:53682/callback?code=abc&state=forged\n".utf8)))
            child.closeStandardInput()
            let result = child.waitForExit(timeout: .seconds(30))
            #expect(result.exitCode != 0 && result.exitCode != nil, "\(result)")
            #expect(result.stdoutLines.last?.contains("\"event\":\"error\"") == true)
            #expect(access(cli.stateDirectory + "/default.tokens", F_OK) != 0)
        }
    }
}
