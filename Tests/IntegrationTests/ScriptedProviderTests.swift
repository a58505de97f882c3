import Glibc
import LatchkeyJOSE
import LatchkeyTestSupport
import Testing

/// Provider quirks (../shared/spec/providers.md) and denials, through the real `latchkey` binary
/// against Tests/Harness/scripted_idp.py, which behaves exactly like the provider in question.
@Suite("Scripted providers")
struct ScriptedProviderTests {
    /// One scenario, the login options it needs, and the exit code the contract (cli.md) demands.
    struct Case: CustomStringConvertible, Sendable {
        let scenario: String
        let expectedExit: Int32
        var serverArguments: [String] = []
        var loginArguments: [String] = []
        var description: String { "\(scenario) → exit \(expectedExit)" }
    }

    static let cases: [Case] = [
        Case(scenario: "ok", expectedExit: 0),
        Case(scenario: "github-200-pending-and-form-encoded", expectedExit: 0),
        Case(scenario: "auth0-403-pending-429-slowdown", expectedExit: 0),
        Case(scenario: "google-verification-url", expectedExit: 0),
        Case(scenario: "entra-declined-with-message-and-no-complete", expectedExit: 4),
        Case(scenario: "interval-string", expectedExit: 0),
        Case(scenario: "interval-zero", expectedExit: 0),
        Case(scenario: "interval-missing", expectedExit: 0),
        Case(scenario: "expires-in-missing", expectedExit: 0),
        Case(scenario: "spring-pending-after-expiry", expectedExit: 5),
        Case(scenario: "slow-down-with-new-interval", expectedExit: 0),
        Case(scenario: "slow-down-plus-5", expectedExit: 0),
        Case(scenario: "denied", expectedExit: 4),
        Case(scenario: "expired-token", expectedExit: 5),
        Case(scenario: "device-not-found-404", expectedExit: 7),
        Case(scenario: "invalid-client", expectedExit: 7),
        Case(scenario: "keycloak-pkce-required", expectedExit: 0),
        Case(scenario: "keycloak-pkce-required", expectedExit: 7, loginArguments: ["--pkce", "never"]),
        Case(scenario: "token-type-lowercase", expectedExit: 0),
        Case(scenario: "no-id-token", expectedExit: 0),
        Case(scenario: "discovery-8414-fallback", expectedExit: 0),
        Case(scenario: "issuer-mismatch", expectedExit: 7),
        Case(scenario: "id-token-wrong-audience", expectedExit: 8),
        Case(scenario: "id-token-expired", expectedExit: 8),
        Case(scenario: "bad-signature-id-token", expectedExit: 8),
        Case(scenario: "jwks-rotating-keys", expectedExit: 0)
    ]

    static func login(
        _ server: ScriptedIdP, _ ws: Workspace, extra: [String] = [],
        timeout: Duration = .seconds(90)
    ) throws -> DeviceLogin.Outcome {
        let login = DeviceLogin(
            latchkey: ws.latchkey,
            arguments: [
                "--issuer", server.issuer,
                "--client-id", "scripted-client", "--scope", "openid offline_access"
            ] + extra)
        return try login.run(timeout: timeout) { _, _ in }  // the scripted server approves by itself
    }

    @Test("device login against a scripted provider", arguments: cases)
    func scenario(_ c: Case) throws {
        let server = try ScriptedIdP(scenario: c.scenario, arguments: c.serverArguments)
        defer { server.stop() }
        let ws = try Workspace()
        let outcome = try Self.login(server, ws, extra: c.loginArguments)
        #expect(
            outcome.result.exitCode == c.expectedExit,
            "\(c): \(outcome.result) events \(outcome.eventNames)")
        #expect(!outcome.result.timedOut)
        let log = ServerLog.read(server.logPath)
        if c.expectedExit == 0 {
            #expect(outcome.eventNames.last == "authorized", "events: \(outcome.eventNames)")
        } else {
            let last = outcome.events.last
            #expect(
                last?["event"]?.stringValue == "error" && last?.number("exit_code") == Double(c.expectedExit),
                "last event: \(String(describing: last))")
        }
        // Whatever the provider did, the client never polled sooner than the interval in force.
        let early = log.filter { $0.raw["early"]?.boolValue == true }
        #expect(early.isEmpty, "early polls: \(early.map(\.raw))")
        try checkScenarioDetails(c, outcome: outcome, log: log)
    }

    func checkScenarioDetails(_ c: Case, outcome: DeviceLogin.Outcome, log: [LoggedRequest]) throws {
        let polls = log.filter(\.isDevicePoll)
        let gaps = ServerLog.pollGaps(log)
        switch c.scenario {
        case "github-200-pending-and-form-encoded":
            let device = log.first { $0.path == "/device_authorization" }
            #expect(
                device?.raw["headers"]?["accept"]?.stringValue?.contains("application/json") == true,
                "device request without Accept: application/json")
            // slow_down on poll 2 carried interval=2: the next gap follows it (not 1 + 5).
            #expect(gaps.count >= 2 && gaps[1] >= 1.95 && gaps[1] < 5.5, "gaps \(gaps)")
        case "slow-down-plus-5":
            #expect(gaps.first.map { $0 >= 5.95 } == true, "gap after slow_down: \(gaps)")
        case "slow-down-with-new-interval":
            #expect(gaps.first.map { $0 >= 2.95 && $0 < 5.5 } == true, "gap after slow_down(interval=3): \(gaps)")
        case "interval-zero", "interval-missing":
            #expect(gaps.first.map { $0 >= 4.95 } == true, "missing/zero interval must mean 5 s: \(gaps)")
        case "google-verification-url":
            #expect(outcome.verification?["verification_uri"]?.stringValue?.hasSuffix("/device") == true)
        case "spring-pending-after-expiry":
            // expires_in=3: the client stops at its own deadline although the server keeps saying pending.
            #expect(outcome.result.elapsed < .seconds(3 + 1 + 4), "took \(outcome.result.elapsed)")
            #expect(polls.count <= 5, "polled \(polls.count) times")
        case "jwks-rotating-keys":
            #expect(log.filter { $0.path == "/jwks" }.count == 2, "JWKS fetches: \(log.filter { $0.path == "/jwks" }.count)")
        case "keycloak-pkce-required" where c.expectedExit == 0:
            #expect(log.first { $0.path == "/device_authorization" }?.param("code_challenge_method") == "S256")
        case "discovery-8414-fallback":
            #expect(log.contains { $0.path == "/.well-known/oauth-authorization-server" })
        case "denied", "entra-declined-with-message-and-no-complete", "expired-token":
            #expect(polls.count == 2, "stopped at once on the final error: \(polls.count) polls")
        default:
            break
        }
    }

    @Test("discovery without a device endpoint: refused, then works with the override")
    func deviceEndpointOverride() throws {
        let server = try ScriptedIdP(scenario: "discovery-without-device-endpoint")
        defer { server.stop() }
        let without = try Self.login(server, try Workspace())
        #expect(
            without.result.exitCode == 7 || without.result.exitCode == 2,
            "no device endpoint and no override: \(without.result)")
        let with = try Self.login(
            server, try Workspace(),
            extra: ["--device-authorization-endpoint", server.issuer + "/device_authorization"])
        #expect(with.result.exitCode == 0, "with the override: \(with.result)")
    }

    @Test("refresh quirks: Glewlwyd's empty 400 means sign in again; no ID token on refresh keeps the old one")
    func refreshQuirks() throws {
        do {
            let server = try ScriptedIdP(scenario: "glewlwyd-empty-400-refresh")
            defer { server.stop() }
            let ws = try Workspace()
            #expect(try Self.login(server, ws).result.exitCode == 0)
            let refresh = try ws.latchkey.run(["refresh"])
            #expect(refresh.exitCode == 3, "empty 400 on refresh: \(refresh)")
        }
        do {
            let server = try ScriptedIdP(scenario: "no-id-token-on-refresh")
            defer { server.stop() }
            let ws = try Workspace()
            #expect(try Self.login(server, ws).result.exitCode == 0)
            let before = try ws.latchkey.run(["id-token"])
            #expect(try ws.latchkey.run(["refresh"]).exitCode == 0)
            let after = try ws.latchkey.run(["id-token"])
            #expect(
                after.exitCode == 0 && after.stdoutText == before.stdoutText && !after.stdoutText.isEmpty,
                "the last verified ID token must survive a refresh without one")
        }
    }

    @Test("token_type 'bearer' is accepted and printed as a Bearer header")
    func lowercaseTokenType() throws {
        let server = try ScriptedIdP(scenario: "token-type-lowercase")
        defer { server.stop() }
        let ws = try Workspace()
        #expect(try Self.login(server, ws).result.exitCode == 0)
        let header = try ws.latchkey.run(["token", "--format", "header"])
        #expect(header.exitCode == 0 && header.stdoutText.hasPrefix("Authorization: Bearer "), "\(header)")
    }
}
