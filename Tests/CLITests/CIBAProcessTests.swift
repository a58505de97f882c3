import Glibc
import LatchkeyJOSE
import LatchkeyTestSupport
import Testing

/// `login --flow ciba` against the scripted server's CIBA scenarios (Tests/Harness/scripted_idp.py):
/// the `backchannel` event, the device flow's polling rules measured server-side, the endings and
/// their exit codes, and the ID token's `auth_req_id`.
@Suite("latchkey login --flow ciba against the scripted server", .serialized)
struct CIBAProcessTests {
    static let hint = #"{"username":"alice"}"#

    /// Runs `body` with a scripted IdP playing `scenario` and a CLI holding a client secret.
    func ciba(_ scenario: String, _ arguments: [String] = [], _ body: (ScriptedIdP, LatchkeyCommand) throws -> Void) throws {
        let idp = try ScriptedIdP(scenario: scenario, arguments: ["--interval", "1"] + arguments)
        defer { idp.stop() }
        try withCLI(["LATCHKEY_CLIENT_SECRET": "s3cret"]) { cli, _ in try body(idp, cli) }
    }

    func login(_ cli: LatchkeyCommand, _ idp: ScriptedIdP, _ extra: [String] = []) throws -> ProcessResult {
        try cli.run(
            [
                "login", "--json", "--flow", "ciba", "--issuer", idp.issuer, "--client-id", "kiosk-7",
                "--login-hint", Self.hint
            ] + extra, timeout: .seconds(60))
    }

    /// The server's log, one object per request.
    func log(_ idp: ScriptedIdP) throws -> [JSONObject] {
        try idp.logLines().map { try JSONParser().parseObject(Array($0.utf8)) }
    }

    func polls(_ idp: ScriptedIdP) throws -> [JSONObject] {
        try log(idp).filter { $0["path"] == "/token" && $0["params"]?["grant_type"] == "urn:openid:params:grant-type:ciba" }
    }

    @Test func cibaLoginThenTokenRefreshLogout() throws {
        try ciba("ciba", ["--approve-after", "3"]) { idp, cli in
            let result = try login(cli, idp, ["--binding-message", "Kiosk 7 · 4F2A"])
            #expect(result.exitCode == 0, "\(result)")
            let events = try LoginProcessTests.events(result)
            #expect(events.map { $0["event"]?.stringValue ?? "?" } == ["backchannel", "pending", "pending", "authorized"])
            let backchannel = try #require(events.first)
            #expect(backchannel["login_hint"] == .string(Self.hint))
            #expect(backchannel["binding_message"] == "Kiosk 7 · 4F2A")
            #expect(backchannel["interval"] == .integer(1))
            #expect(events.last?["id_token_verified"] == .bool(true))
            // What the server received: client authentication, the hint unchanged, the message.
            let request = try #require(try log(idp).first { $0["path"] == "/bc-authorize" })
            #expect(request["params"]?["login_hint"] == .string(Self.hint))
            #expect(request["params"]?["binding_message"] == "Kiosk 7 · 4F2A")
            #expect(request["headers"]?["authorization"] == "Basic")
            // The device flow's spacing, measured by the server: never sooner than the interval.
            let polls = try polls(idp)
            #expect(polls.count == 3)
            #expect(polls.allSatisfy { $0["early"] != .bool(true) }, "\(polls)")
            #expect(try cli.run(["token"]).exitCode == 0)
            #expect(try cli.run(["token", "--force-refresh"]).exitCode == 0)
            let logout = try cli.run(["logout"])
            #expect(logout.exitCode == 0 && !logout.stderrText.contains("warning"), "\(logout)")
        }
    }

    @Test func humanOutputNamesWhoIsAskedTheMessageAndTheDeadline() throws {
        try ciba("ciba", ["--approve-after", "1"]) { idp, cli in
            let result = try cli.run(
                [
                    "login", "--flow", "ciba", "--issuer", idp.issuer, "--client-id", "kiosk-7",
                    "--login-hint", "alice@example.com", "--binding-message", "Kiosk 7"
                ], timeout: .seconds(60))
            #expect(result.exitCode == 0, "\(result)")
            #expect(result.stdout.isEmpty)
            let text = result.stderrText
            #expect(
                text.contains("Asking alice@example.com to approve this sign-in on their own device (signing in to 127.0.0.1)"), "\(text)")
            #expect(text.contains("Kiosk 7") && text.contains("The request expires at "), "\(text)")
        }
    }

    @Test func slowDownAddsFiveSecondsAtTheServer() throws {
        try ciba("ciba-slow-down") { idp, cli in
            let result = try login(cli, idp)
            #expect(result.exitCode == 0, "\(result)")
            #expect(try LoginProcessTests.events(result).contains { $0["event"] == "slow_down" && $0["interval"] == .integer(6) })
            let gaps = try polls(idp).compactMap { $0["gap"]?.doubleValue }
            #expect(gaps.count == 2 && gaps.allSatisfy { $0 >= 6 - 0.05 }, "gaps after slow_down: \(gaps)")
        }
    }

    @Test func aMissingIntervalMeansFiveSeconds() throws {
        try ciba("ciba-interval-missing") { idp, cli in
            let result = try login(cli, idp)
            #expect(result.exitCode == 0, "\(result)")
            let events = try LoginProcessTests.events(result)
            #expect(events.first?["interval"] == .integer(5))
            let log = try log(idp)
            let started = try #require(log.first { $0["path"] == "/bc-authorize" }?["t_done"]?.doubleValue)
            let firstPoll = try #require(try polls(idp).first?["t"]?.doubleValue)
            #expect(firstPoll - started >= 5 - 0.05, "first poll \(firstPoll - started) s after the answer")
        }
    }

    @Test func aServerErrorWhilePollingIsRetried() throws {
        try ciba("ciba-status-503", ["--fault-on", "token", "--approve-after", "1"]) { idp, cli in
            let result = try login(cli, idp)
            #expect(result.exitCode == 0, "\(result)")
            #expect(try log(idp).contains { $0["event"] == "fault:status" })
        }
    }

    @Test(arguments: [
        ("ciba-denied", Int32(4), "access_denied"), ("ciba-expired-then-invalid-grant", 5, "expired_token"),
        ("ciba-auth-req-id-swap", 8, "verification_failed"), ("ciba-ping-push-only", 7, "protocol_violation"),
        ("ciba-unknown-user", 7, "unknown_user_id")
    ])
    func endingsGiveTheContractExitCode(scenario: String, exitCode: Int32, error: String) throws {
        try ciba(scenario, ["--approve-after", "1"]) { idp, cli in
            let result = try login(cli, idp)
            #expect(result.exitCode == exitCode, "\(scenario): \(result)")
            let last = try #require(try LoginProcessTests.events(result).last)
            #expect(last["event"] == "error" && last["error"] == .string(error), "\(last)")
            expectErrorLines(result)
            #expect(access(cli.stateDirectory + "/default.tokens", F_OK) != 0, "nothing saved")
            switch scenario {
            case "ciba-expired-then-invalid-grant":
                #expect(try polls(idp).count == 1, "expired_token ends the wait: no poll after it")
            case "ciba-ping-push-only":
                #expect(try log(idp).allSatisfy { $0["path"] != "/bc-authorize" }, "nothing asked of the person")
                #expect(result.stderrText.contains("lacks poll"), "\(result)")
            case "ciba-unknown-user":
                #expect(result.stderrText.contains("--login-hint"), "\(result)")
            case "ciba-auth-req-id-swap":
                #expect(result.stderrText.contains("auth_req_id"), "\(result)")
            default: break
            }
        }
    }

    @Test func interruptWhilePollingExits130() throws {
        try ciba("ciba", ["--approve-after", "1000"]) { idp, cli in
            let child = try cli.start([
                "login", "--json", "--flow", "ciba", "--issuer", idp.issuer, "--client-id", "k",
                "--login-hint", Self.hint
            ])
            #expect(child.nextLine(timeout: .seconds(30))?.contains("\"backchannel\"") == true)
            _ = child.nextLine(timeout: .seconds(10))
            child.send(signal: SIGINT)
            let result = child.waitForExit(timeout: .seconds(20))
            #expect(result.exitCode == 130, "\(result)")
            #expect(access(cli.stateDirectory + "/default.tokens", F_OK) != 0)
        }
    }

    @Test(arguments: [
        (["--binding-message", String(repeating: "x", count: 65)], "64"),
        (["--binding-message", "two\nlines"], "control character"),
        (["--binding-message", "bell\u{7}"], "control character")
    ])
    func bindingMessageRulesAreUsageErrors(extra: [String], says: String) throws {
        try ciba("ciba") { idp, cli in
            let result = try login(cli, idp, extra)
            #expect(result.exitCode == 2, "\(result)")
            #expect(result.stderrText.contains(says) && result.stderrText.contains("--binding-message"), "\(result)")
            #expect(idp.logLines().isEmpty, "refused before anything is sent")
        }
    }

    @Test func cibaNeedsAHintAndAConfidentialClient() throws {
        try ciba("ciba") { idp, cli in
            let noHint = try cli.run(["login", "--flow", "ciba", "--issuer", idp.issuer, "--client-id", "k"])
            #expect(noHint.exitCode == 2 && noHint.stderrText.contains("--login-hint"), "\(noHint)")
            let hintElsewhere = try cli.run(["login", "--issuer", idp.issuer, "--client-id", "k", "--login-hint", "a"])
            #expect(hintElsewhere.exitCode == 2 && hintElsewhere.stderrText.contains("--flow ciba"), "\(hintElsewhere)")
            let qr = try cli.run([
                "login", "--flow", "ciba", "--issuer", idp.issuer, "--client-id", "k", "--login-hint", "a",
                "--qr-file", "/tmp/x.png"
            ])
            #expect(qr.exitCode == 2 && qr.stderrText.contains("--qr-file"), "\(qr)")
        }
        try withScriptedIdP("ciba") { idp, cli in
            let publicClient = try cli.run(["login", "--flow", "ciba", "--issuer", idp.issuer, "--client-id", "k", "--login-hint", "a"])
            #expect(publicClient.exitCode == 2 && publicClient.stderrText.contains("client authentication"), "\(publicClient)")
        }
    }
}
