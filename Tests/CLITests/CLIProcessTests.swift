import Glibc
import LatchkeyJOSE
import LatchkeyTestSupport
import Testing

@testable import latchkey

/// Runs the built binary in a fresh state directory.
func withCLI(_ extraEnvironment: [String: String] = [:], _ body: (LatchkeyCommand, TemporaryDirectory) throws -> Void) throws {
    let dir = try TemporaryDirectory()
    defer { dir.remove() }
    let cli = try LatchkeyCommand(stateDirectory: dir.path + "/state", extraEnvironment: extraEnvironment)
    try body(cli, dir)
}

/// Runs `body` against a scripted IdP playing `scenario` (1 s poll interval) with a fresh CLI state.
func withScriptedIdP(
    _ scenario: String, _ arguments: [String] = [],
    _ body: (ScriptedIdP, LatchkeyCommand) throws -> Void
) throws {
    let idp = try ScriptedIdP(scenario: scenario, arguments: ["--interval", "1"] + arguments)
    defer { idp.stop() }
    try withCLI { cli, _ in try body(idp, cli) }
}

/// The two-line error format: `latchkey: …` then `hint: …`.
func expectErrorLines(_ result: ProcessResult, sourceLocation: SourceLocation = #_sourceLocation) {
    let lines = result.stderrText.split(separator: "\n").map(String.init)
    #expect(lines.first?.hasPrefix("latchkey: ") == true, "\(result)", sourceLocation: sourceLocation)
    #expect(lines.contains { $0.hasPrefix("hint: ") }, "\(result)", sourceLocation: sourceLocation)
}

@Suite("latchkey binary: usage, help, version")
struct CLIUsageProcessTests {
    @Test func versionLine() throws {
        try withCLI { cli, _ in
            let result = try cli.run(["--version"])
            #expect(result.exitCode == 0)
            let text = result.stdoutText
            // The shipped binary links Debian 13's mbedTLS 3.6 (device/build-static.sh); a debug build on
            // Debian 12 links the system 2.28. LATCHKEY_EXPECT_MBEDTLS pins which one (e.g. "3.6.").
            let expected = HostEnvironment.current["LATCHKEY_EXPECT_MBEDTLS"].map { [$0] } ?? ["2.28.", "3.6."]
            #expect(
                text.hasPrefix("latchkey ") && expected.contains { text.contains(" (mbedTLS \($0)") } && text.hasSuffix(")\n"), "\(text)")
            let version = text.dropFirst("latchkey ".count).prefix { $0 != " " }
            #expect(version.split(separator: ".").count == 3 && version.split(separator: ".").allSatisfy { Int($0) != nil })
        }
    }

    @Test func toolHelpListsEveryCommand() throws {
        try withCLI { cli, _ in
            let result = try cli.run(["--help"])
            #expect(result.exitCode == 0)
            for command in CommandCatalog.all { #expect(result.stdoutText.contains("  " + command.name)) }
            for name in ["--profile", "--state-dir", "--ca-file", "--json", "--verbose", "--quiet", "--version"] {
                #expect(result.stdoutText.contains(name))
            }
        }
    }

    @Test(arguments: CommandCatalog.all.map(\.name) + ["whoami"])
    func commandHelpListsEveryOptionWithDefaults(command: String) throws {
        try withCLI { cli, _ in
            for arguments in [[command, "--help"], ["--help", command], [command, "-h"]] {
                let result = try cli.run(arguments)
                #expect(result.exitCode == 0, "\(result)")
                #expect(result.stdoutText.hasPrefix("Usage: latchkey [GLOBAL OPTIONS] "))
                let spec = try #require(CommandCatalog.named(command))
                for option in spec.options {
                    for name in option.names { #expect(result.stdoutText.contains(name), "\(command) \(name)") }
                    if let def = option.defaultDescription { #expect(result.stdoutText.contains("default: " + def)) }
                }
            }
        }
    }

    @Test(arguments: [
        ["token", "--bogus"], ["--bogus", "token"], ["token", "--format"], ["token", "--format", "yaml"],
        ["token", "--min-ttl", "-1"], ["token", "--force-refresh=yes"], ["frobnicate"], [],
        ["verify", "--leeway", "soon", "--jwks", "x", "t"], ["verify", "t"], ["verify", "--jwks", "j", "--alg", "HS256", "t"],
        ["verify", "--jwks", "j", "--at", "yesterday", "t"], ["discover"], ["login"], ["login", "--issuer", "https://i"],
        ["login", "--issuer", "https://i", "--client-id", "c", "--flow", "carrier-pigeon"],
        ["login", "--issuer", "https://i", "--client-id", "c", "--auth-method", "client_secret_basic"],
        ["--profile", "../etc", "status"], ["token", "extra-argument"], ["-v", "-q", "status"]
    ])
    func usageErrorsExitTwo(arguments: [String]) throws {
        try withCLI { cli, _ in
            let result = try cli.run(arguments)
            #expect(result.exitCode == 2, "\(arguments): \(result)")
            #expect(result.stdout.isEmpty)
            expectErrorLines(result)
            #expect(result.stderrText.split(separator: "\n").count == 2, "\(result.stderrText)")
        }
    }

    @Test func globalOptionsWorkAfterTheCommand() throws {
        try withCLI { cli, dir in
            let result = try cli.run(["status", "--json", "--profile", "other", "--state-dir", dir.path + "/elsewhere"])
            #expect(result.exitCode == 3)
            let object = try JSONParser().parseObject(result.stdout)
            #expect(object["profile"] == "other")
            #expect(object["files"]?["state_dir"] == .string(dir.path + "/elsewhere"))
        }
    }

    @Test func environmentSelectsTheProfile() throws {
        try withCLI(["LATCHKEY_PROFILE": "from-env"]) { cli, _ in
            let result = try cli.run(["status", "--json"])
            #expect(try JSONParser().parseObject(result.stdout)["profile"] == "from-env")
        }
    }
}

@Suite("latchkey binary: not signed in")
struct CLINotSignedInProcessTests {
    @Test(arguments: [
        ["token"], ["token", "--format", "exec-credential"], ["id-token"], ["claims"], ["whoami"],
        ["status"], ["refresh"]
    ])
    func exitsThree(arguments: [String]) throws {
        try withCLI { cli, _ in
            let result = try cli.run(arguments)
            #expect(result.exitCode == 3, "\(arguments): \(result)")
            expectErrorLines(result)
            #expect(result.stderrText.contains("latchkey login"))
            if arguments != ["status"] { #expect(result.stdout.isEmpty) }
        }
    }

    @Test func statusJSONSaysNotSignedIn() throws {
        try withCLI { cli, _ in
            let result = try cli.run(["status", "--json"])
            #expect(result.exitCode == 3)
            let object = try JSONParser().parseObject(result.stdout)
            #expect(object["signed_in"] == .bool(false))
            #expect(object["profile"] == "default")
        }
    }

    @Test func profilesIsEmptyAndLogoutIsIdempotent() throws {
        try withCLI { cli, _ in
            let profiles = try cli.run(["profiles", "--json"])
            #expect(profiles.exitCode == 0)
            #expect(profiles.stdoutText == "[]\n")
            #expect(try cli.run(["logout"]).exitCode == 0)
        }
    }
}
