import Glibc
import LatchkeyTestSupport
import Testing

/// Real `git` driving `latchkey credential` as its credential helper (`git credential fill` and
/// `reject` speak the helper protocol exactly as a clone or push over HTTPS does).
@Suite("latchkey binary: real git credential helper")
struct GitCredentialProcessTests {
    func git(_ cli: LatchkeyCommand, _ home: String, _ arguments: [String], stdin: String) throws -> ProcessResult {
        let git = try Requirement.requireOrSkip(
            access("/usr/bin/git", X_OK) == 0 ? "/usr/bin/git" : nil,
            "git is not installed (apt-get install git)")
        let env = GitEnvironment.isolated(cli.environment, home: home)
        let helper = "!'\(cli.binary)' --state-dir '\(cli.stateDirectory)' credential"
        return try ProcessRunner.run(
            git, ["-c", "credential.helper=", "-c", "credential.helper=" + helper] + arguments,
            environment: env, stdin: Array(stdin.utf8))
    }

    @Test func fillGetsTheTokenForTheIssuersHostOnly() throws {
        try withCLI { cli, dir in
            try CredentialProcessTests().signIn(cli)
            let filled = try git(cli, dir.path, ["credential", "fill"], stdin: "protocol=https\nhost=127.0.0.1:1\npath=org/repo.git\n\n")
            #expect(filled.exitCode == 0, "\(filled)")
            let lines = filled.stdoutLines
            #expect(lines.contains("username=oauth2") && lines.contains("password=access-token-1"), "\(lines)")
            // password_expiry_utc is passed on only by git ≥ 2.41 (Debian 12 ships 2.39); the helper's
            // own output is checked in CredentialProcessTests.

            // Another host: the helper says nothing, git has no other source and fails without a password.
            let other = try git(cli, dir.path, ["credential", "fill"], stdin: "protocol=https\nhost=evil.example\n\n")
            #expect(other.exitCode != 0 && !other.stdoutText.contains("access-token-1"), "\(other)")

            // reject → erase: the next fill must refresh first, and the token endpoint is closed.
            let rejected = try git(
                cli, dir.path, ["credential", "reject"],
                stdin: "protocol=https\nhost=127.0.0.1:1\nusername=oauth2\npassword=access-token-1\n\n")
            #expect(rejected.exitCode == 0, "\(rejected)")
            let again = try git(cli, dir.path, ["credential", "fill"], stdin: "protocol=https\nhost=127.0.0.1:1\n\n")
            #expect(!again.stdoutText.contains("access-token-1"), "\(again)")
        }
    }
}
