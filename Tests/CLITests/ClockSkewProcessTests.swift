import Glibc
import LatchkeyJOSE
import LatchkeyTestSupport
import Testing

/// Issue 27.2: a device whose clock is off from the provider's (an appliance without a
/// battery-backed clock). The scripted provider's `Date` headers and the iat/exp it signs follow a
/// clock `--clock-offset` seconds ahead of this machine's.
@Suite("latchkey and a provider with another clock", .serialized)
struct ClockSkewProcessTests {
    /// The offset a diagnosis line ("the local clock is N s behind the provider's; check NTP")
    /// names, and its direction, or nil when `line` is not one.
    static func diagnosed(_ line: String) -> (seconds: Int, direction: String)? {
        let prefix = "the local clock is ", suffix = " the provider's; check NTP"
        guard line.hasPrefix(prefix), line.hasSuffix(suffix) else { return nil }
        let middle = line.dropFirst(prefix.count).dropLast(suffix.count)  // "600 s behind"
        let parts = middle.split(separator: " ", maxSplits: 2)
        guard parts.count == 3, let seconds = Int(parts[0]), parts[1] == "s",
            parts[2] == "behind" || parts[2] == "ahead of"
        else { return nil }
        return (seconds, String(parts[2]))
    }

    /// Every diagnosis among the `latchkey: warning: ` lines on stderr.
    static func diagnoses(_ result: ProcessResult) -> [(seconds: Int, direction: String)] {
        result.stderrText.split(separator: "\n").compactMap { line in
            line.hasPrefix("latchkey: warning: ") ? diagnosed(String(line.dropFirst("latchkey: warning: ".count))) : nil
        }
    }

    func login(_ cli: LatchkeyCommand, _ idp: ScriptedIdP, json: Bool = true) throws -> ProcessResult {
        try cli.run(
            ["login"] + (json ? ["--json"] : []) + ["--issuer", idp.issuer, "--client-id", "cli-test"],
            timeout: .seconds(60))
    }

    @Test("provider 600 s ahead: login succeeds with one clock_skew warning event, and refresh verifies its ID token")
    func providerAheadJSON() throws {
        try withScriptedIdP("ok", ["--clock-offset", "600", "--approve-after", "1"]) { idp, cli in
            let login = try login(cli, idp)
            #expect(login.exitCode == 0, "\(login)")
            let events = try login.stdoutLines.map { try JSONParser().parseObject(Array($0.utf8)) }
            let warnings = events.filter { $0["event"]?.stringValue == "warning" && $0["code"]?.stringValue == "clock_skew" }
            try #require(warnings.count == 1, "\(login.stdoutText)")
            let warning = warnings[0]
            #expect(warning.keys == ["event", "code", "message", "offset_seconds"], "\(warning.keys)")
            let offset = try #require(warning["offset_seconds"]?.int64Value)
            #expect((598...602).contains(offset), "\(offset)")
            let said = try #require(Self.diagnosed(warning["message"]?.stringValue ?? ""), "\(warning)")
            #expect(said.direction == "behind" && Int64(said.seconds) == offset)
            // Before `authorized`, so a kiosk script that stops reading there has seen it.
            let names = events.compactMap { $0["event"]?.stringValue }
            #expect(names.firstIndex(of: "warning")! < names.firstIndex(of: "authorized")!, "\(names)")
            #expect(Self.diagnoses(login).isEmpty, "with --json the event says it, not a stderr line: \(login.stderrText)")

            let refresh = try cli.run(["refresh"])
            #expect(refresh.exitCode == 0, "a refreshed ID token with the provider's iat: \(refresh)")
            let printed = Self.diagnoses(refresh)
            #expect(printed.count == 1 && printed.first?.direction == "behind", "\(refresh.stderrText)")
        }
    }

    @Test("provider 1200 s behind: its ID token, expired on the local clock, is judged by the provider's; one warning line")
    func providerBehindHuman() throws {
        // exp = the provider's now + 600 s, ten minutes ago here.
        try withScriptedIdP("ok", ["--clock-offset", "-1200", "--approve-after", "1"]) { idp, cli in
            let login = try login(cli, idp, json: false)
            #expect(login.exitCode == 0, "\(login)")
            let said = Self.diagnoses(login)
            #expect(said.count == 1, "\(login.stderrText)")
            #expect(said.first?.direction == "ahead of" && (1198...1202).contains(said.first?.seconds ?? 0), "\(login.stderrText)")
        }
    }

    @Test("provider 25 h ahead: exit 8 naming the offset, after the diagnosis")
    func beyondADay() throws {
        try withScriptedIdP("ok", ["--clock-offset", "90000", "--approve-after", "1"]) { idp, cli in
            let human = try login(cli, idp, json: false)
            #expect(human.exitCode == 8, "\(human)")
            let lines = human.stderrText.split(separator: "\n").map(String.init)
            let said = Self.diagnoses(human)
            #expect(said.count == 1 && said[0].seconds >= 89_998 && said[0].direction == "behind", "\(human.stderrText)")
            let errorIndex = try #require(lines.firstIndex { $0.hasPrefix("latchkey: the local clock is ") }, "\(human.stderrText)")
            let error = lines[errorIndex]
            #expect(
                error.contains(" s behind the provider's, more than 24 h: ")
                    && error.hasSuffix("set the clock (NTP) and try again"), "\(error)")
            #expect(lines.firstIndex { $0.hasPrefix("latchkey: warning: the local clock") }! < errorIndex)
            #expect(lines.dropFirst(errorIndex + 1).first?.hasPrefix("hint: ") == true, "\(human.stderrText)")
            #expect(access(cli.stateDirectory + "/default.tokens", F_OK) != 0, "a refused login saved tokens")

            let json = try login(cli, idp)
            #expect(json.exitCode == 8, "\(json)")
            let events = try json.stdoutLines.map { try JSONParser().parseObject(Array($0.utf8)) }
            let names = events.compactMap { $0["event"]?.stringValue }
            #expect(names.suffix(2) == ["warning", "error"], "\(names)")
            #expect(events.last?["exit_code"]?.int64Value == 8)
            #expect(events.last?["error"]?.stringValue == "clock_skew", "\(json.stdoutText)")
        }
    }
}
