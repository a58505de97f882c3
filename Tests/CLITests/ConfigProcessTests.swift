import Glibc
import Latchkey
import LatchkeyJOSE
import LatchkeyTestSupport
import Testing

/// `latchkey config` (issue 27, item 9): every key it may change, what a change does, the keys that
/// need a new login, and bad values, which leave the profile as it was.
@Suite("latchkey binary: config")
struct ConfigProcessTests {
    func firstLine(_ r: ProcessResult) -> String { r.stderrText.split(separator: "\n").first.map(String.init) ?? "" }
    func profileText(_ cli: LatchkeyCommand) -> String? { FileText.read(cli.stateDirectory + "/profiles/default.json") }

    /// A PEM CA bundle on disk (the test CA of the harness is made per run; any PEM certificate will do).
    func caBundle(_ dir: TemporaryDirectory) throws -> String {
        let path = dir.path + "/ca.pem"
        let result = try ProcessRunner.run(
            "/usr/bin/openssl",
            [
                "req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256",
                "-nodes", "-keyout", dir.path + "/ca.key", "-out", path,
                "-days", "1", "-subj", "/CN=config test CA"
            ],
            environment: HostEnvironment.current, stdin: nil, timeout: .seconds(30))
        try #require(result.exitCode == 0, "openssl: \(result)")
        return path
    }

    @Test func everyKeySetsGetsListsAndUnsets() throws {
        try withCLI { cli, dir in
            try StoredSessionFixture.signIn(cli)
            let ca = try caBundle(dir)
            let values = [
                ("ca-file", ca), ("credential-host", "git.example.com:8443"), ("credential-username", "x-access-token"),
                ("post-logout-redirect-uri", "https://kiosk.example.com/bye"), ("min-ttl", "120")
            ]
            let members = [
                "ca-file": "ca_file", "credential-host": "credential_host", "credential-username": "credential_username",
                "post-logout-redirect-uri": "post_logout_redirect_uri", "min-ttl": "min_ttl"
            ]
            for (key, value) in values {
                let set = try cli.run(["config", "set", key, value])
                #expect(set.exitCode == 0 && set.stdoutText.isEmpty, "set \(key): \(set)")
                let get = try cli.run(["config", "get", key])
                #expect(get.exitCode == 0 && get.stdoutText == value + "\n", "get \(key): \(get)")
                let json = try JSONParser().parseObject(try cli.run(["--json", "config", "get", key]).stdout)
                #expect(json["value"] == .string(value), "\(json)")
            }
            let list = try JSONParser().parseObject(try cli.run(["--json", "config", "list"]).stdout)
            #expect(list["issuer"] == .string(StoredSessionFixture.issuer), "\(list)")
            for (key, value) in values {
                let member = members[key]!
                #expect(list[member] == (key == "min-ttl" ? JSONValue.integer(120) : .string(value)), "\(member) in \(list)")
            }
            let human = try cli.run(["config", "list"]).stdoutText
            #expect(human.contains("credential_host = git.example.com:8443"), "\(human)")
            for (key, _) in values {
                #expect(try cli.run(["config", "unset", key]).exitCode == 0)
                let get = try cli.run(["config", "get", key])
                #expect(get.exitCode == 0 && get.stdoutText.isEmpty, "after unset \(key): \(get)")
            }
            #expect(try cli.run(["token"]).stdoutText == "access-token-1\n", "the session survives config changes")
        }
    }

    @Test(arguments: ["issuer", "client-id", "scope", "flow", "dpop", "auth-method", "key-source", "token-endpoint", "client-key-file"])
    func aSettingOfTheSignInNeedsANewLogin(key: String) throws {
        try withCLI { cli, _ in
            try StoredSessionFixture.signIn(cli)
            let before = profileText(cli)
            for arguments in [["config", "set", key, "x"], ["config", "unset", key]] {
                let r = try cli.run(arguments)
                #expect(r.exitCode == 2, "\(arguments): \(r)")
                #expect(firstLine(r) == "latchkey: changing \(key) needs a new login", "\(r)")
            }
            #expect(profileText(cli) == before)
        }
    }

    @Test func badValuesAreUsageErrorsAndChangeNothing() throws {
        try withCLI { cli, dir in
            try StoredSessionFixture.signIn(cli)
            let before = profileText(cli)
            let notPEM = dir.path + "/not-a-bundle.txt"
            #expect(FileText.write("hello\n", to: notPEM))
            let cases: [([String], String)] = [
                (["config", "set", "min-ttl", "--", "-5"], "latchkey: min-ttl needs a whole number of seconds ≥ 0, got '-5'"),
                (["config", "set", "min-ttl", "soon"], "latchkey: min-ttl needs a whole number of seconds ≥ 0, got 'soon'"),
                (
                    ["config", "set", "credential-host", "git example.com"],
                    "latchkey: --credential-host must be non-empty, without spaces or control characters"
                ),
                (
                    ["config", "set", "credential-username", ""],
                    "latchkey: --credential-username must be non-empty, without spaces or control characters"
                ),
                (
                    ["config", "set", "post-logout-redirect-uri", "nowhere"],
                    "latchkey: --post-logout-redirect-uri must be an absolute URI, got 'nowhere'"
                ),
                (
                    ["config", "set", "ca-file", dir.path + "/missing.pem"],
                    "latchkey: cannot read the CA bundle \(dir.path)/missing.pem: no such file or directory"
                ),
                (["config", "set", "ca-file", notPEM], "latchkey: \(notPEM) holds no PEM certificate"),
                (["config", "set", "colour", "blue"], "latchkey: unknown setting 'colour'"),
                (["config", "get", "issuer"], "latchkey: changing issuer needs a new login"),
                (["config", "set", "min-ttl"], "latchkey: config set needs KEY and VALUE"),
                (["config", "frobnicate"], "latchkey: unknown config action 'frobnicate'"),
                (["config"], "latchkey: config needs get, set, unset or list")
            ]
            for (arguments, line) in cases {
                let r = try cli.run(arguments)
                #expect(r.exitCode == 2, "\(arguments): \(r)")
                #expect(firstLine(r) == line, "\(arguments): \(r)")
            }
            #expect(profileText(cli) == before, "a refused value changed the profile")
        }
    }

    /// Issue 33 §3: one table of remembered settings, so `login --ca-file` refuses what `config set
    /// ca-file` refuses, before anything is sent (it only made the path absolute before: a file
    /// with no certificate was remembered and failed at every later use).
    @Test func loginChecksTheRememberedSettingsAsConfigDoes() throws {
        try withCLI { cli, dir in
            let notPEM = dir.path + "/not-a-bundle.txt"
            #expect(FileText.write("hello\n", to: notPEM))
            // Port 9 answers nothing: a login that got past the check would fail on the network (6).
            let login = ["login", "--issuer", "https://127.0.0.1:9/realm", "--client-id", "c"]
            let cases: [([String], String)] = [
                (["--ca-file", notPEM] + login, "latchkey: \(notPEM) holds no PEM certificate"),
                (
                    login + ["--credential-host", "git example.com"],
                    "latchkey: --credential-host must be non-empty, without spaces or control characters"
                ),
                (
                    login + ["--post-logout-redirect-uri", "nowhere"],
                    "latchkey: --post-logout-redirect-uri must be an absolute URI, got 'nowhere'"
                )
            ]
            for (arguments, line) in cases {
                let r = try cli.run(arguments)
                #expect(r.exitCode == 2, "\(arguments): \(r)")
                #expect(firstLine(r) == line, "\(arguments): \(r)")
            }
            #expect(profileText(cli) == nil, "nothing remembered")
        }
    }

    @Test func notSignedInIsExitThree() throws {
        try withCLI { cli, _ in
            let r = try cli.run(["config", "set", "min-ttl", "30"])
            #expect(r.exitCode == 3, "\(r)")
        }
    }

    /// min-ttl is the margin `token` uses without --min-ttl: a token obtained 3 hours ago that has
    /// one hour left (a 4-hour lifetime) is refreshed with 7200 s (the -v log shows the token
    /// request), and after unset it is not. A margin not less than the lifetime is not used
    /// (issue 37 §4): `token` says so and answers from the file.
    @Test func minTTLIsTheDefaultMargin() throws {
        try withCLI { cli, _ in
            StoredSessionFixture.writeProfile(cli)
            var session = StoredSessionFixture.session()
            session.updatedAt = session.updatedAt.addingTimeInterval(-3 * 3600)
            try EncryptedFileTokenStore(stateDirectory: cli.stateDirectory, profile: "default", keySource: .machine).save(session)
            #expect(!(try cli.run(["-v", "token"]).stderrText.contains("/token")))
            #expect(try cli.run(["config", "set", "min-ttl", "14400"]).exitCode == 0)
            let overrun = try cli.run(["-v", "token"])
            #expect(!overrun.stderrText.contains("/token"), "\(overrun)")
            #expect(overrun.stderrText.contains("min-ttl (14400 s) is not less than the token's lifetime (14400 s)"), "\(overrun)")
            #expect(try cli.run(["config", "set", "min-ttl", "7200"]).exitCode == 0)
            let refreshing = try cli.run(["-v", "token"])
            #expect(refreshing.stderrText.contains("> POST \(StoredSessionFixture.issuer)/token"), "\(refreshing)")
            // An explicit --min-ttl still wins.
            #expect(!(try cli.run(["-v", "token", "--min-ttl", "60"]).stderrText.contains("/token")))
            #expect(try cli.run(["config", "unset", "min-ttl"]).exitCode == 0)
            #expect(!(try cli.run(["-v", "token"]).stderrText.contains("/token")))
        }
    }

    /// credential-host decides which host `credential get` answers; -v says why it stayed silent.
    @Test func credentialHostDecidesWhereGitGetsTheToken() throws {
        try withCLI { cli, _ in
            try StoredSessionFixture.signIn(cli)
            let request = Array("protocol=https\nhost=git.example.com\n\n".utf8)
            let silent = try cli.run(["-v", "credential", "get"], stdin: request)
            #expect(silent.exitCode == 0 && silent.stdoutText.isEmpty, "\(silent)")
            #expect(
                silent.stderrText.contains(
                    "* credential get: no answer for https://git.example.com: profile 'default' answers only https://127.0.0.1:1"),
                "\(silent)")
            #expect(try cli.run(["config", "set", "credential-host", "git.example.com"]).exitCode == 0)
            let answered = try cli.run(["credential", "get"], stdin: request)
            #expect(answered.stdoutText.contains("password=access-token-1\n"), "\(answered)")
        }
    }
}
