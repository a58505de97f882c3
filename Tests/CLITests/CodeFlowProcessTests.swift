import Glibc
import LatchkeyHTTP
import LatchkeyJOSE
import LatchkeyTestSupport
import Testing

/// The paste flow (authorization code + PKCE, redirect URL pasted on stdin) and `--verbose`
/// redaction, against the scripted server, whose /authorize approves at once and redirects.
@Suite("latchkey login --flow paste, and --verbose")
struct CodeFlowProcessTests {
    @Test func pasteFlowThenVerboseRefreshIsRedacted() throws {
        let curl = try Requirement.requireOrSkip(
            access("/usr/bin/curl", X_OK) == 0 ? "/usr/bin/curl" : nil,
            "curl is not installed")
        let idp = try ScriptedIdP(scenario: "ok")
        defer { idp.stop() }
        try withCLI { cli, _ in
            let child = try cli.start(
                ["login", "--json", "--flow", "paste", "--issuer", idp.issuer, "--client-id", "cli-test"],
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

    /// Stdin at end of input before a URL or code was pasted: exit 2 saying so (130 is SIGINT's).
    @Test func endOfInputBeforeAPasteIsExitTwo() throws {
        let idp = try ScriptedIdP(scenario: "ok")
        defer { idp.stop() }
        try withCLI { cli, _ in
            for stdin in [[UInt8](), Array("   ".utf8)] {
                // `--scope openid`: no offline_access warning ahead of the error line.
                let human = try cli.run(
                    ["login", "--flow", "paste", "--scope", "openid", "--issuer", idp.issuer, "--client-id", "c"],
                    stdin: stdin)
                #expect(human.exitCode == (stdin.isEmpty ? 2 : 7), "\(human) \(human.stderrText)")
                if stdin.isEmpty {
                    // After the address to open, the error line, then its hint.
                    let lines = human.stderrText.split(separator: "\n").map(String.init)
                    let error = lines.firstIndex { $0.hasPrefix("latchkey: ") }
                    #expect(error.map { lines[$0] } == "latchkey: no redirect URL was pasted: end of input", "\(human.stderrText)")
                    #expect(error.map { lines.dropFirst($0 + 1).first?.hasPrefix("hint: ") == true } == true, "\(human.stderrText)")
                }
            }
            let json = try cli.run(["login", "--json", "--flow", "paste", "--issuer", idp.issuer, "--client-id", "c"], stdin: [])
            #expect(json.exitCode == 2, "\(json)")
            let error = try JSONParser().parseObject(Array(try #require(json.stdoutLines.last).utf8))
            #expect(error["event"] == "error" && error["exit_code"]?.int64Value == 2, "\(error)")
            #expect(error["message"] == "no redirect URL was pasted: end of input", "\(error)")
            #expect(access(cli.stateDirectory + "/default.tokens", F_OK) != 0)
        }
    }

    /// OpenID Connect Core §11: offline access in the browser and paste flows adds prompt=consent,
    /// unless --param prompt=… chose another; the device flow has no prompt.
    @Test func offlineAccessAsksForConsentInTheCodeFlowsOnly() throws {
        try withScriptedIdP("ok", ["--approve-after", "1"]) { idp, cli in
            for (flow, extra, expected) in [
                ("paste", [String](), ["consent"]), ("browser", [], ["consent"]),
                ("paste", ["--param", "prompt=login"], ["login"]),
                ("browser", ["--scope", "openid profile"], [])
            ] {
                let child = try cli.start(
                    [
                        "login", "--json", "--flow", flow, "--issuer", idp.issuer, "--client-id", "c",
                        "--timeout", "20"
                    ] + extra, stdin: .pipe)
                defer { child.terminate() }
                let first = try #require(child.nextLine(timeout: .seconds(30)))
                let url = try #require(try JSONParser().parseObject(Array(first.utf8))["url"]?.stringValue)
                let query = String(url.split(separator: "?", maxSplits: 1).last ?? "")
                let prompts = FormURLEncoding.decode(query).filter { $0.0 == "prompt" }.map(\.1)
                #expect(prompts == expected, "\(flow) \(extra): \(url)")
            }
            let device = try cli.run(["login", "--json", "--issuer", idp.issuer, "--client-id", "c"])
            #expect(device.exitCode == 0, "\(device)")
            let request = try #require(
                idp.logLines().compactMap { try? JSONParser().parseObject(Array($0.utf8)) }
                    .first { $0["path"] == "/device_authorization" })
            #expect(request["params"]?["scope"] == "openid offline_access" && request["params"]?["prompt"] == nil, "\(request)")
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

    @Test func browserFlowThroughTheLoopbackListener() throws {
        let curl = try Requirement.requireOrSkip(
            access("/usr/bin/curl", X_OK) == 0 ? "/usr/bin/curl" : nil,
            "curl is not installed")
        let idp = try ScriptedIdP(scenario: "ok")
        defer { idp.stop() }
        try withCLI { cli, _ in
            let child = try cli.start(["login", "--json", "--flow", "browser", "--issuer", idp.issuer, "--client-id", "c"])
            let first = try #require(child.nextLine(timeout: .seconds(30)))
            let url = try #require(try JSONParser().parseObject(Array(first.utf8))["url"]?.stringValue)
            #expect(url.contains("redirect_uri=http%3A%2F%2F127.0.0.1%3A"))
            // The "browser" follows the redirect back to latchkey's listener on 127.0.0.1.
            let browser = try ProcessRunner.run(curl, ["-s", "-L", "-o", "/dev/null", "-w", "%{http_code}", url])
            #expect(browser.stdoutText == "200", "\(browser)")
            let result = child.waitForExit(timeout: .seconds(30))
            #expect(result.exitCode == 0, "\(result)")
            #expect(result.stdoutLines.last?.contains("\"event\":\"authorized\"") == true)
        }
    }

    @Test func passphraseKeySource() throws {
        let idp = try ScriptedIdP(scenario: "ok", arguments: ["--interval", "1", "--approve-after", "1"])
        defer { idp.stop() }
        try withCLI(["LATCHKEY_PASSPHRASE": "correct horse"]) { cli, dir in
            let login = try cli.run(
                ["login", "--json", "--key-source", "passphrase", "--issuer", idp.issuer, "--client-id", "c"],
                timeout: .seconds(60))
            #expect(login.exitCode == 0, "\(login)")
            #expect(try cli.run(["token"]).exitCode == 0)
            let status = try JSONParser().parseObject(try cli.run(["status", "--json"]).stdout)
            #expect(status["key_source"] == "passphrase")
            // The same state with a wrong or missing passphrase: a storage failure, exit 9.
            var wrong = cli.environment
            wrong["LATCHKEY_PASSPHRASE"] = "wrong"
            let denied = try ProcessRunner.run(cli.binary, ["--state-dir", cli.stateDirectory, "token"], environment: wrong)
            #expect(denied.exitCode == 9, "\(denied)")
            wrong["LATCHKEY_PASSPHRASE"] = nil
            let missing = try ProcessRunner.run(cli.binary, ["--state-dir", cli.stateDirectory, "token"], environment: wrong)
            #expect(missing.exitCode == 9, "\(missing)")
            #expect(missing.stderrText.contains("passphrase"))
            // From a file instead of the environment.
            let file = dir.path + "/pass"
            #expect(FileText.write("correct horse\n", to: file))
            let fromFile = try ProcessRunner.run(
                cli.binary, ["--state-dir", cli.stateDirectory, "token", "--passphrase-file", file],
                environment: wrong)
            #expect(fromFile.exitCode == 0, "\(fromFile)")
            // The key source is fixed once the profile has tokens.
            let change = try cli.run(["login", "--key-source", "machine"])
            #expect(change.exitCode == 2, "\(change)")
        }
    }
}
