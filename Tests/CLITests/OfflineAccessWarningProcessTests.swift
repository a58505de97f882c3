import LatchkeyJOSE
import LatchkeyTestSupport
import Testing

/// The warning a public client gets for `offline_access` without DPoP: it advises only what the
/// provider offers, comes once per profile and only after a sign-in succeeded, and with `--json`
/// it is an event on stdout, never text on stderr.
@Suite("latchkey login: the offline_access warning", .serialized)
struct OfflineAccessWarningProcessTests {
    static let unbound = "offline_access without DPoP: the refresh token is a bearer secret on this device"
    /// At a provider without DPoP, for a `machine` key source.
    static let noDPoPAdvice =
        unbound + "; the provider offers no DPoP: keep the token file under a key that is not on this disk"
        + " (--key-source passphrase or credential, at a profile's first login), or leave offline_access out of --scope"
    /// At a provider that offers DPoP, signed in with `--dpop never`.
    static let dpopAdvice = unbound + "; the provider offers DPoP: sign in with --dpop auto to bind it to a key"

    static func warnings(_ result: ProcessResult) -> [String] {
        result.stderrText.split(separator: "\n").map(String.init).filter { $0.hasPrefix("latchkey: warning:") }
    }

    static func login(_ cli: LatchkeyCommand, _ idp: ScriptedIdP, _ extra: [String] = []) throws -> ProcessResult {
        try cli.run(["login", "--issuer", idp.issuer, "--client-id", "cli-test"] + extra, timeout: .seconds(60))
    }

    @Test func withoutDPoPItAdvisesTheKeySourceOnceAndOnlyAfterSuccess() throws {
        try withScriptedIdP("ok", ["--approve-after", "1"]) { idp, cli in
            let first = try Self.login(cli, idp)
            #expect(first.exitCode == 0, "\(first)")
            #expect(Self.warnings(first) == ["latchkey: warning: " + Self.noDPoPAdvice], "\(first.stderrText)")
            // After the code was shown and approved, not before the flow.
            let lines = first.stderrText.split(separator: "\n").map(String.init)
            let shown = lines.firstIndex { $0.hasPrefix("The code expires at") } ?? lines.count
            let warned = lines.firstIndex { $0.hasPrefix("latchkey: warning:") } ?? -1
            #expect(warned > shown, "\(first.stderrText)")
            // Once per profile: the next sign-in of the same profile says nothing.
            let second = try Self.login(cli, idp)
            #expect(second.exitCode == 0 && Self.warnings(second).isEmpty, "\(second)")
            // Another profile is told once too.
            let other = try cli.run(["--profile", "other", "login", "--issuer", idp.issuer, "--client-id", "cli-test"])
            #expect(Self.warnings(other) == ["latchkey: warning: " + Self.noDPoPAdvice], "\(other.stderrText)")
        }
    }

    @Test func atADPoPProviderItAdvisesDPoP() throws {
        try withScriptedIdP("dpop", ["--approve-after", "1"]) { idp, cli in
            let result = try Self.login(cli, idp, ["--dpop", "never"])
            #expect(result.exitCode == 0, "\(result)")
            #expect(Self.warnings(result) == ["latchkey: warning: " + Self.dpopAdvice], "\(result.stderrText)")
        }
    }

    @Test func aFailedLoginIsNotWarnedAbout() throws {
        try withScriptedIdP("denied", ["--approve-after", "1"]) { idp, cli in
            let result = try Self.login(cli, idp)
            #expect(result.exitCode == 4, "\(result)")
            #expect(Self.warnings(result).isEmpty, "\(result.stderrText)")
        }
    }

    /// `--json` writes no human text: the warning is an event before `authorized`.
    @Test func withJSONItIsAnEventAndStderrIsEmpty() throws {
        try withScriptedIdP("ok", ["--approve-after", "1"]) { idp, cli in
            let result = try Self.login(cli, idp, ["--json"])
            #expect(result.exitCode == 0, "\(result)")
            #expect(result.stderrText.isEmpty, "\(result.stderrText)")
            let events = try result.stdoutLines.map { try JSONParser().parseObject(Array($0.utf8)) }
            let warning = try #require(events.first { $0["event"] == "warning" }, "\(result.stdoutText)")
            #expect(warning.keys == ["event", "code", "message"])
            #expect(warning["code"] == "offline_access_unbound" && warning["message"] == .string(Self.noDPoPAdvice), "\(warning)")
            #expect(events.last?["event"] == "authorized")
        }
    }
}
