import Glibc
import LatchkeyTestSupport
import Testing

/// Reading a state directory that belongs to someone else, or none at all: the messages say
/// whose state it is and where latchkey looked (issue 27, item 4).
@Suite("latchkey binary: another user's state")
struct WrongUserMessageTests {
    func lines(_ r: ProcessResult) -> [String] { r.stderrText.split(separator: "\n").map(String.init) }

    @Test func notSignedInNamesTheStateDirectory() throws {
        try withCLI { cli, _ in
            for command in [["token"], ["status"], ["claims"], ["refresh"]] {
                let r = try cli.run(command)
                #expect(r.exitCode == 3, "\(command): \(r)")
                #expect(
                    lines(r).first == "latchkey: profile 'default' is not signed in (state directory \(cli.stateDirectory))",
                    "\(command): \(r)")
            }
        }
    }

    /// root (the test runs as root in CI) reading a service user's state: the hint says to run as
    /// that user, never to chown it (which would break the real owner).
    @Test func foreignOwnerSaysWhoseStateItIs() throws {
        guard getuid() == 0 else {
            throw try Requirement.missing("root, to give the state directory to another uid", environment: HostEnvironment.current)
        }
        try withCLI { cli, _ in
            try StoredSessionFixture.signIn(cli)
            #expect(try cli.run(["token"]).exitCode == 0)
            #expect(chown(cli.stateDirectory, 1001, 1001) == 0)
            let r = try cli.run(["token"])
            #expect(r.exitCode == 9, "\(r)")
            #expect(
                lines(r).first
                    == "latchkey: profile settings: refusing \(cli.stateDirectory): it belongs to uid 1001, and latchkey runs as uid 0",
                "\(r)")
            let hint = lines(r).first { $0.hasPrefix("hint: ") } ?? ""
            #expect(hint.contains("sudo -u '#1001' latchkey"), "\(r)")
            #expect(hint.contains("--state-dir"), "\(r)")
            #expect(!hint.contains("fix the owner"), "\(r)")
        }
    }
}
