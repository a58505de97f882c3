import FoundationEssentials
import Glibc
import Latchkey
import LatchkeyHTTP
import LatchkeyTestSupport
import Testing

/// `token` and `status` only read, and still refuse a state folder (or `profiles/` folder) that
/// group or others can write (exit 9), since its owner could have swapped the files in it.
@Suite("latchkey binary: the state folder is checked on read")
struct StateDirectoryReadProcessTests {
    /// A signed-in profile written through the storage API, as `login` leaves it.
    func signIn(_ cli: LatchkeyCommand) throws { try StoredSessionFixture.signIn(cli) }

    @Test(arguments: ["", "/profiles"])
    func worldWritableFolderMakesTokenAndStatusExitNine(folder: String) throws {
        try withCLI { cli, _ in
            try signIn(cli)
            #expect(try cli.run(["token"]).exitCode == 0)
            #expect(try cli.run(["status"]).exitCode == 0)
            let path = cli.stateDirectory + folder
            #expect(chmod(path, 0o777) == 0)
            defer { chmod(path, 0o700) }
            for arguments in [["token"], ["status"], ["--json", "status"]] {
                let result = try cli.run(arguments)
                #expect(result.exitCode == 9, "\(arguments) with a 0777 \(path): \(result)")
                #expect(!result.stdoutText.contains("access-token-1"), "\(result)")
                #expect(result.stderrText.contains(path), "\(result)")
                expectErrorLines(result)
                // The fix is chmod, not removing the profile.
                #expect(result.stderrText.contains("700") && !result.stderrText.contains("remove the file"), "\(result)")
            }
        }
    }
}
