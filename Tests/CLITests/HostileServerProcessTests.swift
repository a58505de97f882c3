import Glibc
import LatchkeyJOSE
import LatchkeyTestSupport
import Testing

/// Issue 12, items 1–4, through the built binary: what a hostile server or a local user can do to
/// a sign-in, and what the person then sees and gets.
@Suite("hostile servers and local attackers", .serialized)
struct HostileServerProcessTests {
    /// Bytes a terminal would act on: C0 (but newline and tab), DEL, and C1 in UTF-8 (0xC2 0x80–0x9F).
    static func terminalControls(_ bytes: [UInt8]) -> [UInt8] {
        var found: [UInt8] = []
        for (i, b) in bytes.enumerated() {
            if (b < 0x20 && b != 0x0A && b != 0x09) || b == 0x7F { found.append(b) }
            if b == 0xC2, i + 1 < bytes.count, (0x80...0x9F).contains(bytes[i + 1]) { found.append(bytes[i + 1]) }
        }
        return found
    }

    func scripted(_ scenario: String, _ arguments: [String] = [], _ body: (ScriptedIdP, LatchkeyCommand) throws -> Void) throws {
        try withScriptedIdP(scenario, arguments, body)
    }

    // MARK: 1. Terminal escape injection

    @Test func serverTextReachesTheTerminalWithoutControlCharacters() throws {
        try scripted("terminal-escapes") { idp, cli in
            let login = try cli.run(["login", "--issuer", idp.issuer, "--client-id", "c"], timeout: .seconds(60))
            #expect(login.exitCode == 0, "\(login)")
            #expect(Self.terminalControls(login.stderr).isEmpty, "\(login.stderrText.debugDescription)")
            #expect(login.stderrText.contains("as user\\x1B[2K root\\u009B31m"), "\(login.stderrText)")
            let status = try cli.run(["status"])
            #expect(status.exitCode == 0, "\(status)")
            #expect(Self.terminalControls(status.stdout).isEmpty, "\(status.stdoutText.debugDescription)")
            #expect(status.stdoutText.contains("user\\x1B[2K root\\u009B31m"))
            let profiles = try cli.run(["profiles"])
            #expect(Self.terminalControls(profiles.stdout).isEmpty, "\(profiles.stdoutText.debugDescription)")
            // JSON keeps the exact value; its encoder escapes it.
            let json = try JSONParser().parseObject(try cli.run(["status", "--json"]).stdout)
            #expect(json["subject"] == .string("user\u{1B}[2K\rroot\u{9B}31m"))
        }
    }

    @Test func jsonEventsCarryTheExactTextEscapedByTheEncoder() throws {
        try scripted("terminal-escapes") { idp, cli in
            let login = try cli.run(["login", "--json", "--issuer", idp.issuer, "--client-id", "c"], timeout: .seconds(60))
            #expect(login.exitCode == 0, "\(login)")
            #expect(!login.stdout.contains(0x1B) && !login.stdout.contains(0x07))
            let first = try JSONParser().parseObject(Array(try #require(login.stdoutLines.first).utf8))
            #expect(first["user_code"] == .string("WDJB-MJHT"))
            let status = try cli.run(["status", "--json"])
            // JSON keeps the exact value, and its encoder escapes C1 as well as C0.
            #expect(Self.terminalControls(status.stdout).isEmpty, "\(status.stdoutText.debugDescription)")
            #expect(try JSONParser().parseObject(status.stdout)["subject"] == .string("user\u{1B}[2K\rroot\u{9B}31m"))
        }
    }

    /// RFC 8628 §6.1: a user code is typed by a person; one with terminal controls is a malformed
    /// answer, refused before anything is shown or polled, in human and JSON output alike.
    @Test(arguments: [[String](), ["--json"]])
    func aUserCodeWithControlsIsExit7AndNeverShown(extra: [String]) throws {
        try scripted("user-code-escapes") { idp, cli in
            let login = try cli.run(["login"] + extra + ["--issuer", idp.issuer, "--client-id", "c"], timeout: .seconds(60))
            #expect(login.exitCode == 7, "\(login)")
            #expect(
                Self.terminalControls(login.stderr).isEmpty && Self.terminalControls(login.stdout).isEmpty,
                "\(login.stderrText.debugDescription)")
            #expect(!login.stderrText.contains("HIDDEN") && !login.stdoutText.contains("HIDDEN"), "\(login)")
            #expect(!idp.logLines().contains { $0.contains("\"/token\"") }, "polled anyway")
        }
    }

    @Test func deniedWithEscapesInTheDescription() throws {
        try scripted("terminal-escapes-denied") { idp, cli in
            let login = try cli.run(["login", "--issuer", idp.issuer, "--client-id", "c"], timeout: .seconds(60))
            #expect(login.exitCode == 4, "\(login)")
            #expect(Self.terminalControls(login.stderr).isEmpty, "\(login.stderrText.debugDescription)")
            #expect(login.stderrText.contains("Denied\\x1B]0;owned\\x07\\x1B[1A\\x1B[2K by policy"), "\(login.stderrText)")
        }
    }

    @Test(arguments: ["verification-uri-plain-http", "verification-uri-javascript"])
    func verificationAddressesThatAreNotWebOriginsAreExit7AndNeverDrawn(scenario: String) throws {
        try scripted(scenario) { idp, cli in
            let login = try cli.run(["login", "--qr", "--issuer", idp.issuer, "--client-id", "c"], timeout: .seconds(60))
            #expect(login.exitCode == 7, "\(login)")
            #expect(
                !login.stderrText.contains("█") && !login.stderrText.contains("▀") && !login.stderrText.contains("▄"),
                "a QR code was drawn: \(login.stderrText)")
            #expect(!login.stderrText.contains("To sign in, open"))
            #expect(!idp.logLines().contains { $0.contains("\"/token\"") }, "polled anyway")
        }
    }

    // MARK: 2. Error redirects and state

    @Test func aForgedRedirectWithoutStateDoesNotEndTheBrowserSignIn() throws {
        let curl = try Requirement.requireOrSkip(
            access("/usr/bin/curl", X_OK) == 0 ? "/usr/bin/curl" : nil,
            "curl is not installed")
        try scripted("ok") { idp, cli in
            let child = try cli.start(["login", "--json", "--flow", "browser", "--issuer", idp.issuer, "--client-id", "c"])
            let first = try #require(child.nextLine(timeout: .seconds(30)))
            let url = try #require(try JSONParser().parseObject(Array(first.utf8))["url"]?.stringValue)
            let redirect = try #require(url.split(separator: "&").first { $0.hasPrefix("redirect_uri=") })
            let callback = String(redirect.dropFirst("redirect_uri=".count))
                .replacingPercentEscapes()
            // Another local user, who found the port with `ss -ltn`: no state, an error and escapes.
            for query in [
                "error=access_denied&error_description=%1B%5D0%3Bowned%07",
                "error=access_denied&state=forged", "code=stolen&state=forged"
            ] {
                let forged = try ProcessRunner.run(curl, ["-s", "-o", "/dev/null", "-w", "%{http_code}", callback + "?" + query])
                #expect(forged.stdoutText == "400", "\(query): \(forged)")
            }
            #expect(child.isRunning, "the forged redirect ended the sign-in")
            // The real browser then completes it.
            let browser = try ProcessRunner.run(curl, ["-s", "-L", "-o", "/dev/null", "-w", "%{http_code}", url])
            #expect(browser.stdoutText == "200", "\(browser)")
            let result = child.waitForExit(timeout: .seconds(30))
            #expect(result.exitCode == 0, "\(result)")
            #expect(result.stdoutLines.last?.contains("\"event\":\"authorized\"") == true)
        }
    }

    @Test func aRedirectURIThatOnlyLooksLikeLoopbackIsRefused() throws {
        try scripted("ok") { idp, cli in
            for uri in ["http://127.0.0.1.nip.io:8080/callback", "http://127.attacker.example/callback"] {
                let result = try cli.run([
                    "login", "--flow", "browser", "--timeout", "5", "--redirect-uri", uri,
                    "--issuer", idp.issuer, "--client-id", "c"
                ])
                // A usage-class refusal before any listener or URL, not a wait that times out (5).
                #expect(result.exitCode == 2, "\(uri): \(result)")
                #expect(!result.stderrText.contains("Open this address"), "\(result)")
            }
        }
    }

    // MARK: 3. A refused refresh ID token

    @Test func aRefreshWhoseIDTokenIsRefusedNeverHandsOutItsAccessToken() throws {
        try scripted("refresh-id-token-other-subject", ["--approve-after", "1"]) { idp, cli in
            let login = try cli.run(["login", "--issuer", idp.issuer, "--client-id", "c"], timeout: .seconds(60))
            #expect(login.exitCode == 0, "\(login)")
            let before = try cli.run(["token"]).stdoutText
            let refresh = try cli.run(["refresh"])
            #expect(refresh.exitCode == 8, "\(refresh)")
            let after = try cli.run(["token"])
            #expect(after.exitCode == 0, "\(after)")
            #expect(after.stdoutText == before, "the refused response's access token was handed out")
            let status = try JSONParser().parseObject(try cli.run(["status", "--json"]).stdout)
            #expect(status["subject"] == "scripted-user-1")
            // The rotated refresh token was kept: the server accepts the next refresh (exit 8 again,
            // for the same refused ID token) instead of answering invalid_grant (exit 3).
            let again = try cli.run(["refresh"])
            #expect(again.exitCode == 8, "\(again)")
            let refused = idp.logLines().filter { $0.contains("refresh-refused") }
            #expect(refused.isEmpty, "\(refused)")
        }
    }

    // MARK: 4. Logout racing a refresh

    @Test func logoutWaitsForARefreshInFlightAndRevokesWhatItSaved() throws {
        try scripted("slow-refresh", ["--approve-after", "1", "--refresh-delay", "3"]) { idp, cli in
            let login = try cli.run(["login", "--issuer", idp.issuer, "--client-id", "c"], timeout: .seconds(60))
            #expect(login.exitCode == 0, "\(login)")
            let refresh = try cli.start(["refresh"])
            let deadline = ContinuousClock.now + .seconds(20)
            while !idp.logLines().contains(where: { $0.contains("refresh-received") }) && ContinuousClock.now < deadline {
                usleep(50_000)
            }
            let logout = try cli.run(["logout"])
            let refreshed = refresh.waitForExit(timeout: .seconds(30))
            #expect(logout.exitCode == 0, "\(logout)")
            #expect(refreshed.exitCode == 0, "\(refreshed)")
            // Signed out, and the refresh token revoked is the rotated one, not the spent one.
            let status = try cli.run(["status"])
            #expect(status.exitCode == 3, "signed in again after logout: \(status)")
            let lines = idp.logLines().compactMap { try? JSONParser().parseObject(Array($0.utf8)) }
            let sent = lines.first { $0["event"] == "refresh-received" }?["params"]?.objectValue?["refresh_token"]
            let revoked = lines.first { $0["event"] == "revoked" && $0["token_type_hint"] == "refresh_token" }?["params"]?
                .objectValue?["token"]
            #expect(sent != nil && revoked != nil, "\(lines)")
            #expect(revoked != sent, "logout revoked the spent refresh token, not the rotated one")
        }
    }
}

private extension String {
    /// Percent-decoding for the test's own use (the redirect URI in the authorization URL).
    func replacingPercentEscapes() -> String {
        var bytes: [UInt8] = []
        var it = Array(utf8).makeIterator()
        while let b = it.next() {
            if b == UInt8(ascii: "%"), let h = it.next(), let l = it.next(),
                let v = UInt8(String(decoding: [h, l], as: UTF8.self), radix: 16)
            {
                bytes.append(v)
            } else {
                bytes.append(b)
            }
        }
        return String(decoding: bytes, as: UTF8.self)
    }
}
