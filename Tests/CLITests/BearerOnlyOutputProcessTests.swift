import Glibc
import LatchkeyJOSE
import LatchkeyTestSupport
import Testing

/// Outputs that can carry only a Bearer token (a Kubernetes ExecCredential, a lone
/// `Authorization` header, git's HTTP Basic password) refuse a DPoP-bound session and name the
/// fix; a git profile (`--credential-host`) is a Bearer profile unless `--dpop` says otherwise; and
/// README's curl example works whichever binding the session has.
@Suite("latchkey binary: Bearer-only outputs and DPoP-bound sessions", .serialized)
struct BearerOnlyOutputProcessTests {
    static let tokenFix = "`latchkey login --dpop never`"
    static let headerFix = "`latchkey token --format header --method M --url URL`"

    static func profile(_ cli: LatchkeyCommand, _ name: String) throws -> JSONObject {
        try JSONParser().parseObject(Array((FileText.read(cli.stateDirectory + "/profiles/\(name).json") ?? "").utf8))
    }

    @Test func bearerOnlyFormatsRefuseABoundSessionAndNameTheFix() throws {
        try withScriptedIdP("dpop", ["--approve-after", "1"]) { idp, cli in
            try FetchProcessTests.login(cli, idp)
            #expect(try cli.run(["status"]).stdoutText.contains("token binding: dpop"))
            for arguments in [
                ["token", "--format", "exec-credential"], ["token", "--format", "header"],
                ["token", "--format", "exec-credential", "--force-refresh"],
                ["token", "--format", "header", "--force-refresh"]
            ] {
                let r = try cli.run(arguments)
                #expect(r.exitCode == 2 && r.stdout.isEmpty, "\(arguments): \(r)")
                expectErrorLines(r)
                let naming = r.stderrText.split(separator: "\n").filter { $0.contains(Self.tokenFix) && $0.contains(Self.headerFix) }
                #expect(naming.count == 1, "\(arguments): \(r.stderrText)")
            }
            // git gets no answer (exit 0, so it asks its next helper) and one line with the exact command.
            let get = try cli.run(["credential", "get"], stdin: Array("protocol=https\nhost=127.0.0.1:\(idp.port)\n\n".utf8))
            #expect(get.exitCode == 0 && get.stdout.isEmpty, "\(get)")
            let lines = get.stderrText.split(separator: "\n")
            #expect(lines.count == 1 && lines[0].contains(Self.tokenFix), "\(get.stderrText)")
            // The DPoP paths still work.
            #expect(try cli.run(["token", "--format", "header", "--method", "GET", "--url", idp.issuer + "/resource"]).exitCode == 0)
        }
    }

    /// The exact command names the profile, so it can be pasted as it is.
    @Test func credentialGetNamesTheProfileInItsFix() throws {
        try withScriptedIdP("dpop", ["--approve-after", "1"]) { idp, cli in
            let login = try cli.run([
                "--profile", "forge", "login", "--json", "--issuer", idp.issuer, "--client-id", "c", "--dpop", "auto",
                "--credential-host", "127.0.0.1:\(idp.port)"
            ])
            #expect(login.exitCode == 0, "\(login)")
            let get = try cli.run(
                ["--profile", "forge", "credential", "get"], stdin: Array("protocol=https\nhost=127.0.0.1:\(idp.port)\n\n".utf8))
            #expect(get.exitCode == 0 && get.stdout.isEmpty, "\(get)")
            #expect(get.stderrText.contains("`latchkey --profile forge login --dpop never`"), "\(get.stderrText)")
        }
    }

    /// `login --credential-host` without `--dpop` makes a Bearer profile, and says so in one line
    /// (a warning event with `--json`); git then gets its password.
    @Test func aGitProfileIsABearerProfileUnlessDPoPIsGiven() throws {
        try withScriptedIdP("dpop", ["--approve-after", "1"]) { idp, cli in
            let host = "127.0.0.1:\(idp.port)"
            let login = try cli.run(["--profile", "forge", "login", "--issuer", idp.issuer, "--client-id", "c", "--credential-host", host])
            #expect(login.exitCode == 0, "\(login)")
            let notes = login.stderrText.split(separator: "\n").filter { $0.hasPrefix("latchkey: note:") }
            #expect(notes.count == 1 && notes[0].contains("--dpop never"), "\(login.stderrText)")
            #expect(try Self.profile(cli, "forge")["dpop"] == "never")
            #expect(try cli.run(["--profile", "forge", "status"]).stdoutText.contains("token binding: none"))
            let get = try cli.run(["--profile", "forge", "credential", "get"], stdin: Array("protocol=https\nhost=\(host)\n\n".utf8))
            #expect(get.exitCode == 0 && get.stdoutText.hasPrefix("username=oauth2\npassword="), "\(get)")
            // Signing in again: the profile already says never, nothing to note.
            let again = try cli.run(["--profile", "forge", "login", "--credential-host", host])
            #expect(again.exitCode == 0 && !again.stderrText.contains("note:"), "\(again)")

            let json = try cli.run([
                "--profile", "forge-json", "login", "--json", "--issuer", idp.issuer, "--client-id", "c",
                "--credential-host", host
            ])
            #expect(json.exitCode == 0 && json.stderrText.isEmpty, "\(json)")
            let events = try json.stdoutLines.map { try JSONParser().parseObject(Array($0.utf8)) }
            let note = try #require(
                events.first { $0["event"] == "warning" && $0["code"] == "credential_host_bearer" }, "\(json.stdoutText)")
            #expect(note["message"]?.stringValue?.contains("--dpop never") == true)
            #expect(events.last?["token_binding"] == "none")
        }
        // The help says it.
        try withCLI { cli, _ in
            let help = try cli.run(["login", "--help"]).stdoutText + (try cli.run(["login", "--help"]).stderrText)
            let line = help.split(separator: "\n").first { $0.contains("--credential-host") } ?? ""
            #expect(line.contains("--dpop never"), "\(help)")
        }
    }

    /// README's example, run as it is written (against the scripted resource), works for a
    /// DPoP-bound session and for a Bearer one.
    @Test func theReadmeCurlExampleWorksAtEveryProvider() throws {
        let readme = FileText.read(PackagePaths.root() + "/README.md") ?? ""
        let example = try #require(
            readme.split(separator: "\n").first { $0.contains("curl ") && $0.contains("latchkey token") },
            "README has no curl example")
        _ = try Requirement.requireOrSkip(access("/usr/bin/curl", X_OK) == 0 ? "/usr/bin/curl" : nil, "curl is not installed")
        for scenario in ["dpop", "ok"] {
            try withScriptedIdP(scenario, ["--approve-after", "1"]) { idp, cli in
                try FetchProcessTests.login(cli, idp)
                let bin = FetchProcessTests.scratch(cli) + "/bin"
                #expect(mkdir(bin, 0o700) == 0 && symlink(cli.binary, bin + "/latchkey") == 0)
                var env = cli.environment
                env["PATH"] = bin + ":" + (env["PATH"] ?? "/usr/bin:/bin")
                let command = String(example).replacingAll("https://api.example.com/", with: idp.issuer + "/resource")
                let r = try ProcessRunner.run("/bin/bash", ["-c", "set -o pipefail; " + command], environment: env)
                #expect(r.exitCode == 0 && r.stdoutText.contains("\"subject\""), "\(scenario): \(command): \(r)")
            }
        }
    }
}

extension String {
    /// Every occurrence of `target` replaced by `replacement` (no Foundation here).
    func replacingAll(_ target: String, with replacement: String) -> String {
        var result = ""
        var rest = Substring(self)
        while let range = rest.firstRange(of: target) {
            result += rest[..<range.lowerBound] + replacement
            rest = rest[range.upperBound...]
        }
        return result + rest
    }
}
