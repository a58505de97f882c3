import Glibc
import LatchkeyJOSE
import LatchkeyTestSupport
import Testing

/// `--ca-file` through the binary against a TLS server whose CA only the test knows
/// (Tests/Harness/http: make_certs.sh and test_server.py): what `login --ca-file` remembers, what
/// wins over it (cli.md, global options), and what `status` shows.
@Suite("latchkey --ca-file: remembered by the profile", .serialized)
struct CAFileProcessTests {
    /// A throwaway PKI and a TLS server for `localhost` signed by its CA.
    final class TLSServer {
        let pki: TemporaryDirectory
        let process: ChildProcess
        let port: Int
        var caFile: String { pki.path + "/ca.pem" }
        var otherCAFile: String { pki.path + "/other-ca.pem" }
        func url(_ path: String) -> String { "https://localhost:\(port)\(path)" }

        init() throws {
            pki = try TemporaryDirectory(prefix: "latchkey-pki-")
            let made = try ProcessRunner.run("/bin/sh", [PackagePaths.harness() + "/http/make_certs.sh", pki.path], timeout: .seconds(120))
            guard made.exitCode == 0 else {
                pki.remove()
                throw try Requirement.missing("make_certs.sh failed (openssl?): \(made.stderrText.suffix(300))")
            }
            process = try ChildProcess.spawn(
                "/usr/bin/python3",
                [
                    PackagePaths.harness() + "/http/test_server.py",
                    "--cert", pki.path + "/localhost.pem", "--key", pki.path + "/localhost.key"
                ],
                environment: HostEnvironment.current, stdin: .pipe)  // it exits at end of stdin
            guard let line = process.nextLine(timeout: .seconds(20)), let port = Int(line) else {
                process.terminate()
                pki.remove()
                throw try Requirement.missing("test_server.py did not start")
            }
            self.port = port
        }

        deinit {
            process.terminate()
            pki.remove()
        }
    }

    /// Runs `body` signed in at the scripted provider (plain http) with `login --ca-file CA`; the
    /// environment names no CA bundle at all.
    static func signedIn(_ body: (ScriptedIdP, LatchkeyCommand, TLSServer) throws -> Void) throws {
        let server = try TLSServer()
        try withScriptedIdP("ok", ["--approve-after", "1"]) { idp, scripted in
            let cli = try LatchkeyCommand(stateDirectory: scripted.stateDirectory, extraEnvironment: ["SSL_CERT_FILE": ""])
            let login = try cli.run(["login", "--ca-file", server.caFile, "--issuer", idp.issuer, "--client-id", "cli-test"])
            try #require(login.exitCode == 0, "\(login) \(login.stderrText)")
            try body(idp, cli, server)
        }
    }

    @Test func laterCommandsUseTheCAFileLoginWasGiven() throws {
        try Self.signedIn { _, cli, server in
            let fetched = try cli.run(["fetch", server.url("/echo")])
            #expect(fetched.exitCode == 0, "\(fetched) \(fetched.stderrText)")
            #expect(fetched.stdoutText.contains("\"method\""), "\(fetched.stdoutText)")
            // A later login without --ca-file keeps it.
            #expect(try cli.run(["login"]).exitCode == 0)
            #expect(try cli.run(["fetch", server.url("/echo")]).exitCode == 0)
        }
    }

    @Test func aLaterFlagOrVariableWins() throws {
        try Self.signedIn { _, cli, server in
            let other = server.otherCAFile
            for (arguments, environment) in [
                (["--ca-file", other], [String: String]()), ([], ["LATCHKEY_CA_FILE": other]),
                ([], ["SSL_CERT_FILE": other])
            ] {
                let runner = try LatchkeyCommand(
                    stateDirectory: cli.stateDirectory,
                    extraEnvironment: cli.environment.merging(environment) { $1 })
                let result = try runner.run(arguments + ["fetch", server.url("/echo")])
                #expect(result.exitCode == 6, "\(arguments) \(environment): \(result) \(result.stderrText)")
            }
            // And the flag given later with the right CA works while the variable names the wrong one.
            let runner = try LatchkeyCommand(
                stateDirectory: cli.stateDirectory,
                extraEnvironment: cli.environment.merging(["LATCHKEY_CA_FILE": other]) { $1 })
            #expect(try runner.run(["--ca-file", server.caFile, "fetch", server.url("/echo")]).exitCode == 0)
        }
    }

    /// A CA bundle that is named but cannot be read is a usage error (exit 2, an unreadable option
    /// file), found before anything is sent: not a network failure.
    @Test func anUnreadableCABundleIsExitTwoNamingIt() throws {
        try withCLI(["SSL_CERT_FILE": ""]) { cli, dir in
            let missing = dir.path + "/missing.pem"
            let issuer = "https://127.0.0.1:9/realm"
            for (arguments, environment, line) in [
                (["--ca-file", missing], [String: String](), "latchkey: cannot read the CA bundle \(missing): no such file or directory"),
                (["--ca-file", dir.path], [:], "latchkey: cannot read the CA bundle \(dir.path): Is a directory (errno 21)"),
                ([], ["LATCHKEY_CA_FILE": missing], "latchkey: cannot read the CA bundle \(missing): no such file or directory"),
                ([], ["SSL_CERT_FILE": missing], "latchkey: cannot read the CA bundle \(missing): no such file or directory")
            ] {
                let runner = try LatchkeyCommand(
                    stateDirectory: cli.stateDirectory,
                    extraEnvironment: cli.environment.merging(environment) { $1 })
                let result = try runner.run(arguments + ["discover", "--issuer", issuer])
                #expect(result.exitCode == 2, "\(arguments) \(environment): \(result) \(result.stderrText)")
                #expect(result.stderrText.split(separator: "\n").first.map(String.init) == line, "\(result.stderrText)")
                expectErrorLines(result)
            }
        }
    }

    @Test func aRememberedBundleThatWasRemovedIsExitTwoAndVerboseNamesTheBundle() throws {
        try Self.signedIn { _, cli, server in
            let verbose = try cli.run(["-v", "fetch", server.url("/echo")])
            #expect(verbose.exitCode == 0, "\(verbose) \(verbose.stderrText)")
            #expect(verbose.stderrText.contains("* CA bundle: \(server.caFile)\n"), "\(verbose.stderrText)")
            #expect(unlink(server.caFile) == 0)
            let result = try cli.run(["fetch", server.url("/echo")])
            #expect(result.exitCode == 2, "\(result) \(result.stderrText)")
            #expect(
                result.stderrText.split(separator: "\n").first.map(String.init)
                    == "latchkey: cannot read the CA bundle \(server.caFile): no such file or directory", "\(result.stderrText)")
        }
    }

    @Test func statusShowsTheRememberedCAFile() throws {
        try Self.signedIn { _, cli, server in
            let status = try JSONParser().parseObject(try cli.run(["status", "--json"]).stdout)
            #expect(status["ca_file"] == .string(server.caFile), "\(status)")
            // Members are only appended: ca_file, then last_refresh (issue 27), end the object.
            #expect(Array(status.keys.suffix(2)) == ["ca_file", "last_refresh"], "\(status.keys)")
            let human = try cli.run(["status"]).stdoutLines
            #expect(human.contains { $0.hasPrefix("ca file:") && $0.hasSuffix(" " + server.caFile) }, "\(human)")
        }
        try withScriptedIdP("ok", ["--approve-after", "1"]) { idp, cli in
            #expect(try cli.run(["login", "--issuer", idp.issuer, "--client-id", "cli-test"]).exitCode == 0)
            let status = try JSONParser().parseObject(try cli.run(["status", "--json"]).stdout)
            #expect(status["ca_file"] == .null, "\(status)")
            #expect(!(try cli.run(["status"]).stdoutText.contains("ca file:")))
        }
    }
}
