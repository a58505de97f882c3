import Glibc
import LatchkeyJOSE
import LatchkeyTestSupport
import Testing

/// `login` and the commands after it against the scripted OAuth server (Tests/Harness/scripted_idp.py).
@Suite("latchkey login against the scripted server", .serialized)
struct LoginProcessTests {
    /// The contract's members, in order, for each JSON Lines event.
    static let eventShapes: [String: [String]] = [
        "verification": [
            "event", "verification_uri", "verification_uri_complete", "user_code", "expires_at", "interval",
            "issuer", "verification_host_matches_issuer"
        ],
        "backchannel": ["event", "login_hint", "binding_message", "expires_at", "interval"],
        "authorization_url": ["event", "url"],
        "pending": ["event", "next_poll_in"],
        "slow_down": ["event", "interval"],
        "authorized": ["event", "issuer", "subject", "scope", "expires_at", "id_token_verified", "token_binding"],
        "error": ["event", "error", "exit_code", "message"],
        "warning": ["event", "code", "message"]
    ]

    /// Parses stdout as JSON Lines and checks every line against the contract's shapes and types.
    static func events(_ result: ProcessResult, sourceLocation: SourceLocation = #_sourceLocation) throws -> [JSONObject] {
        var events: [JSONObject] = []
        for line in result.stdoutLines {
            let object = try JSONParser().parseObject(Array(line.utf8))
            let name = try #require(object["event"]?.stringValue, sourceLocation: sourceLocation)
            let shape = try #require(eventShapes[name], "unknown event \(name)", sourceLocation: sourceLocation)
            #expect(object.keys == shape, "\(line)", sourceLocation: sourceLocation)
            switch name {
            case "verification":
                #expect(object["verification_uri"]?.stringValue != nil && object["user_code"]?.stringValue != nil)
                #expect(object["verification_uri_complete"]?.stringValue != nil || object["verification_uri_complete"] == .null)
                #expect(object["expires_at"]?.stringValue.flatMap(RFC3339Reference.parse) != nil)
                #expect(object["interval"]?.int64Value != nil)
            case "pending": #expect(object["next_poll_in"]?.int64Value != nil)
            case "slow_down": #expect(object["interval"]?.int64Value != nil)
            case "authorized":
                #expect(object["issuer"]?.stringValue != nil && object["id_token_verified"]?.boolValue != nil)
                for key in ["subject", "scope", "expires_at"] {
                    #expect(object[key]?.stringValue != nil || object[key] == .null)
                }
            case "error":
                #expect(object["error"]?.stringValue != nil && object["exit_code"]?.int64Value != nil)
            default: break
            }
            events.append(object)
        }
        return events
    }

    func scripted(_ scenario: String, _ arguments: [String] = [], _ body: (ScriptedIdP, LatchkeyCommand) throws -> Void) throws {
        try withScriptedIdP(scenario, arguments, body)
    }

    @Test func deviceLoginThenEveryCommand() throws {
        try scripted("ok", ["--approve-after", "2"]) { idp, cli in
            let login = try cli.run(["login", "--json", "--issuer", idp.issuer, "--client-id", "cli-test"], timeout: .seconds(60))
            #expect(login.exitCode == 0, "\(login)")
            let events = try Self.events(login)
            #expect(events.first?["event"] == "verification")
            #expect(events.last?["event"] == "authorized")
            #expect(events.last?["id_token_verified"] == .bool(true))
            #expect(events.dropFirst().dropLast().allSatisfy { $0["event"] == "pending" || $0["event"] == "warning" })
            // The offline_access warning, once the sign-in succeeded: right before `authorized`.
            #expect(events.dropLast().last?["code"] == "offline_access_unbound", "\(login.stdoutText)")
            var info = stat()
            #expect(stat(cli.stateDirectory + "/profiles/default.json", &info) == 0 && info.st_mode & 0o777 == 0o600)
            // Remembered: later commands need no --issuer.
            #expect(try cli.run(["token"]).exitCode == 0)
            #expect(try cli.run(["refresh"]).exitCode == 0)
            let claims = try JSONParser().parseObject(try cli.run(["claims"]).stdout)
            #expect(claims["iss"] == .string(idp.issuer))
            let logout = try cli.run(["logout"])
            #expect(logout.exitCode == 0 && !logout.stderrText.contains("warning"), "\(logout)")
            #expect(idp.logLines().contains { $0.contains("/revoke") })
            #expect(try cli.run(["token"]).exitCode == 3)
            // A second login reuses the remembered issuer and client.
            let again = try cli.run(["login", "--json"], timeout: .seconds(60))
            #expect(again.exitCode == 0, "\(again)")
        }
    }

    @Test(arguments: [
        ("denied", Int32(4), "access_denied"), ("expired-token", 5, "expired_token"),
        ("invalid-client", 7, "invalid_client"), ("issuer-mismatch", 7, "issuer_mismatch"),
        ("entra-declined-with-message-and-no-complete", 4, "authorization_declined")
    ])
    func failuresGiveTheContractExitCode(scenario: String, exitCode: Int32, error: String) throws {
        try scripted(scenario) { idp, cli in
            let result = try cli.run(["login", "--json", "--issuer", idp.issuer, "--client-id", "cli-test"], timeout: .seconds(90))
            #expect(result.exitCode == exitCode, "\(scenario): \(result)")
            let events = try Self.events(result)
            let last = try #require(events.last)
            #expect(last["event"] == "error")
            #expect(last["exit_code"]?.int64Value == Int64(exitCode))
            #expect(last["error"] == .string(error), "\(last)")
            expectErrorLines(result)
            #expect(access(cli.stateDirectory + "/default.tokens", F_OK) != 0)
            #expect(access(cli.stateDirectory + "/profiles/default.json", F_OK) != 0)
        }
    }

    @Test func timeoutOptionExitsFive() throws {
        try scripted("ok", ["--approve-after", "1000"]) { idp, cli in
            let result = try cli.run(
                ["login", "--json", "--timeout", "3", "--issuer", idp.issuer, "--client-id", "c"],
                timeout: .seconds(60))
            #expect(result.exitCode == 5, "\(result)")
            #expect(try Self.events(result).last?["exit_code"]?.int64Value == 5)
        }
    }

    @Test func interruptWhilePollingExits130AndSavesNothing() throws {
        try scripted("ok", ["--approve-after", "1000"]) { idp, cli in
            let child = try cli.start(["login", "--json", "--issuer", idp.issuer, "--client-id", "cli-test"])
            let first = try #require(child.nextLine(timeout: .seconds(30)))
            #expect(first.contains("\"verification\""))
            _ = child.nextLine(timeout: .seconds(10))  // a pending poll: the flow is waiting
            child.send(signal: SIGINT)
            let result = child.waitForExit(timeout: .seconds(20))
            #expect(result.exitCode == 130, "\(result)")
            let events = try Self.events(result)
            #expect(events.last?["event"] == "error" && events.last?["exit_code"]?.int64Value == 130)
            #expect(access(cli.stateDirectory + "/default.tokens", F_OK) != 0)
            #expect(access(cli.stateDirectory + "/profiles/default.json", F_OK) != 0)
            // No temporary files left half-written either.
            let listing = try ProcessRunner.run("/bin/ls", ["-A", cli.stateDirectory])
            #expect(!listing.stdoutText.contains(".tmp"), "\(listing.stdoutText)")
        }
    }

    @Test func terminateWhilePollingExits143() throws {
        try scripted("ok", ["--approve-after", "1000"]) { idp, cli in
            let child = try cli.start(["login", "--json", "--issuer", idp.issuer, "--client-id", "cli-test"])
            #expect(child.nextLine(timeout: .seconds(30)) != nil)
            child.send(signal: SIGTERM)
            let result = child.waitForExit(timeout: .seconds(20))
            #expect(result.exitCode == 143, "\(result)")
        }
    }

    @Test func refreshRejectedExitsThreeAndClearsTokens() throws {
        try scripted("glewlwyd-empty-400-refresh", ["--approve-after", "1"]) { idp, cli in
            #expect(try cli.run(["login", "--json", "--issuer", idp.issuer, "--client-id", "c"], timeout: .seconds(60)).exitCode == 0)
            let refresh = try cli.run(["refresh"])
            #expect(refresh.exitCode == 3, "\(refresh)")
            expectErrorLines(refresh)
            #expect(try cli.run(["token"]).exitCode == 3)
        }
    }

    @Test func slowDownEventIsReported() throws {
        try scripted("slow-down-with-new-interval") { idp, cli in
            let result = try cli.run(["login", "--json", "--issuer", idp.issuer, "--client-id", "c"], timeout: .seconds(90))
            #expect(result.exitCode == 0, "\(result)")
            let events = try Self.events(result)
            #expect(events.contains { $0["event"] == "slow_down" && $0["interval"]?.int64Value == 3 })
        }
    }

    @Test func humanOutputWithoutATerminalIsPlain() throws {
        try scripted("ok", ["--approve-after", "1"]) { idp, cli in
            let result = try cli.run(["login", "--issuer", idp.issuer, "--client-id", "c"], timeout: .seconds(60))
            #expect(result.exitCode == 0, "\(result)")
            #expect(result.stdout.isEmpty)  // $(latchkey login) is harmless
            let text = result.stderrText
            #expect(text.contains("enter the code WDJB-MJHT") || text.contains("WDJB-MJHT"))
            #expect(!text.contains("\u{1B}["))  // no colours or cursor movement
            #expect(!text.contains("█"))  // no QR code when stderr is not a terminal
            #expect(text.contains("Signed in to \(idp.issuer)"))
        }
    }

    @Test func discoverPrintsValidatedMetadata() throws {
        try scripted("ok") { idp, cli in
            let result = try cli.run(["discover", "--issuer", idp.issuer])
            #expect(result.exitCode == 0, "\(result)")
            let object = try JSONParser().parseObject(result.stdout)
            #expect(object["issuer"] == .string(idp.issuer))
            #expect(object["token_endpoint"]?.stringValue?.hasPrefix(idp.issuer) == true)
        }
        try scripted("issuer-mismatch") { idp, cli in
            let result = try cli.run(["discover", "--issuer", idp.issuer])
            #expect(result.exitCode == 7, "\(result)")
        }
    }

    @Test func verifyWithIssuerDiscoversTheKeys() throws {
        try scripted("ok", ["--approve-after", "1"]) { idp, cli in
            #expect(
                try cli.run(["login", "--json", "--issuer", idp.issuer, "--client-id", "cli-test"], timeout: .seconds(60)).exitCode == 0)
            let idToken = try cli.run(["id-token"]).stdoutText
            let result = try cli.run(
                ["verify", "--issuer", idp.issuer, "--audience", "cli-test", "--no-time-check", "-"],
                stdin: Array(idToken.utf8))
            #expect(result.exitCode == 0, "\(result)")
            #expect(try cli.run(["verify", "--issuer", idp.issuer, "--audience", "other", "--no-time-check", idToken]).exitCode == 8)
        }
    }
}
