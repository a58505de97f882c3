import LatchkeyJOSE
import LatchkeyTestSupport
import Testing

/// Issue 37 §4: `config set min-ttl` has a ceiling (a day), and a remembered margin at least as long
/// as the token's lifetime is not used (it made every `token` a refresh, with no word of it): the
/// default rule applies and `token` says so.
@Suite("config set min-ttl: bounded, and never a refresh on every call", .serialized)
struct MinTTLCeilingProcessTests {
    @Test func aHugeMinTTLIsRefused() throws {
        try withScriptedIdP("ok", ["--approve-after", "1"]) { idp, cli in
            let login = try cli.run(["login", "--issuer", idp.issuer, "--client-id", "cli-test"], timeout: .seconds(60))
            try #require(login.exitCode == 0, "\(login)")
            for value in ["9223372036854775807", "86401"] {
                let set = try cli.run(["config", "set", "min-ttl", value])
                #expect(set.exitCode == 2, "\(value): \(set) \(set.stderrText)")
                #expect(set.stderrText.contains("at most 86400 seconds"), "\(set.stderrText)")
            }
            #expect(try cli.run(["config", "get", "min-ttl"]).stdoutText.isEmpty)
            #expect(try cli.run(["config", "set", "min-ttl", "86400"]).exitCode == 0)
        }
    }

    @Test func aMarginPastTheLifetimeFallsBackToTheDefaultAndSaysSo() throws {
        try withScriptedIdP("ok", ["--approve-after", "1", "--at-ttl", "300"]) { idp, cli in
            let login = try cli.run(["login", "--issuer", idp.issuer, "--client-id", "cli-test"], timeout: .seconds(60))
            try #require(login.exitCode == 0, "\(login)")
            #expect(try cli.run(["config", "set", "min-ttl", "3600"]).exitCode == 0)
            let refreshesBefore = Self.refreshes(idp)
            var outputs: Set<String> = []
            for _ in 0..<5 {
                let token = try cli.run(["token"], timeout: .seconds(60))
                #expect(token.exitCode == 0, "\(token) \(token.stderrText)")
                #expect(token.stderrText.contains("min-ttl (3600 s) is not less than the token's lifetime (300 s)"), "\(token.stderrText)")
                outputs.insert(token.stdoutText)
            }
            #expect(Self.refreshes(idp) == refreshesBefore, "\(Self.refreshes(idp) - refreshesBefore) refreshes for 5 calls")
            #expect(outputs.count == 1)
            // A margin below the lifetime is used as remembered, without a word.
            #expect(try cli.run(["config", "set", "min-ttl", "299"]).exitCode == 0)
            let below = try cli.run(["token"], timeout: .seconds(60))
            #expect(below.exitCode == 0 && !below.stderrText.contains("min-ttl"), "\(below) \(below.stderrText)")
        }
    }

    static func refreshes(_ idp: ScriptedIdP) -> Int {
        idp.logLines().filter { line in
            guard let entry = try? JSONParser().parseObject(Array(line.utf8)) else { return false }
            return entry["path"] == .string("/token") && entry["params"]?["grant_type"] == .string("refresh_token")
        }.count
    }
}
