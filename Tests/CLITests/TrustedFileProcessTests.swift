import Glibc
import LatchkeyTestSupport
import Testing

/// A CA bundle or a state folder that someone other than the user (or root) can change is refused
/// (exit 9, naming the path and who can write it): whoever could write it would choose which servers
/// the device trusts, and so who receives the refresh token. Issue 31 §2 and issue 37 §5.
@Suite("Trust-deciding files: nobody else may write them", .serialized)
struct TrustedFileProcessTests {
    /// A TLS server whose CA only the test knows, with that CA bundle copied to `path` (mode `mode`).
    static func bundle(at path: String, mode: mode_t, from server: CAFileProcessTests.TLSServer) throws {
        let pem = try #require(FileText.read(server.caFile))
        #expect(FileText.write(pem, to: path, mode: mode))
        #expect(chmod(path, mode) == 0)
    }

    @Test func aBundleOthersCanWriteIsRefusedAtEveryUse() throws {
        try CAFileProcessTests.signedIn { _, cli, server in
            let dir = try TemporaryDirectory(prefix: "latchkey-ca-")
            defer { dir.remove() }
            let open = dir.path + "/open"
            #expect(mkdir(open, 0o755) == 0)
            let file = open + "/ca.pem"
            try Self.bundle(at: file, mode: 0o644, from: server)
            // The control: the same bundle, safe, works.
            let fine = try cli.run(["--ca-file", file, "fetch", server.url("/echo")])
            #expect(fine.exitCode == 0, "\(fine) \(fine.stderrText)")

            // The file itself writable by everyone, then by its group.
            for (mode, who) in [(mode_t(0o666), "everyone can write \(file)"), (0o664, "group 0 can write \(file)")] {
                #expect(chmod(file, mode) == 0)
                let result = try cli.run(["--ca-file", file, "fetch", server.url("/echo")])
                #expect(result.exitCode == 9, "\(mode): \(result) \(result.stderrText)")
                #expect(result.stderrText.hasPrefix("latchkey: refusing the CA bundle \(file): \(who)"), "\(result.stderrText)")
                expectErrorLines(result)
            }
            #expect(chmod(file, 0o644) == 0)

            // A folder above it that everyone can write (not sticky): the file could be swapped.
            #expect(chmod(open, 0o777) == 0)
            for (arguments, environment) in [
                (["--ca-file", file], [String: String]()), ([], ["SSL_CERT_FILE": file]),
                ([], ["LATCHKEY_CA_FILE": file])
            ] {
                let runner = try LatchkeyCommand(
                    stateDirectory: cli.stateDirectory,
                    extraEnvironment: cli.environment.merging(environment) { $1 })
                let result = try runner.run(arguments + ["fetch", server.url("/echo")])
                #expect(result.exitCode == 9, "\(arguments) \(environment): \(result) \(result.stderrText)")
                #expect(result.stderrText.contains("everyone can write \(open)"), "\(result.stderrText)")
            }
            // Remembering it is refused too, and nothing is remembered.
            let set = try cli.run(["config", "set", "ca-file", file])
            #expect(set.exitCode == 9, "\(set) \(set.stderrText)")
            #expect(set.stderrText.contains("everyone can write \(open)"), "\(set.stderrText)")

            // A sticky folder (as /tmp) is fine for its owner's file, not for another user's.
            #expect(chmod(open, 0o1777) == 0)
            let sticky = try cli.run(["--ca-file", file, "fetch", server.url("/echo")])
            #expect(sticky.exitCode == 0, "\(sticky) \(sticky.stderrText)")
            #expect(chown(file, 1001, 1001) == 0)
            let foreign = try cli.run(["--ca-file", file, "fetch", server.url("/echo")])
            #expect(foreign.exitCode == 9, "\(foreign) \(foreign.stderrText)")
            #expect(foreign.stderrText.contains("\(file) belongs to uid 1001"), "\(foreign.stderrText)")
        }
    }

    /// A symbolic link is followed and the target's folders are judged too: a safe link into a folder
    /// others can write is no safer than the folder.
    @Test func aLinkToABundleInAnOpenFolderIsRefused() throws {
        try CAFileProcessTests.signedIn { _, cli, server in
            let dir = try TemporaryDirectory(prefix: "latchkey-ca-")
            defer { dir.remove() }
            let open = dir.path + "/open"
            #expect(mkdir(open, 0o777) == 0)
            #expect(chmod(open, 0o777) == 0)
            try Self.bundle(at: open + "/ca.pem", mode: 0o644, from: server)
            let link = dir.path + "/ca-link.pem"
            #expect(symlink(open + "/ca.pem", link) == 0)
            let result = try cli.run(["--ca-file", link, "fetch", server.url("/echo")])
            #expect(result.exitCode == 9, "\(result) \(result.stderrText)")
            #expect(result.stderrText.contains("everyone can write \(open)"), "\(result.stderrText)")
        }
    }

    /// The state folder's parent by the same rule (issue 37 §5): a parent others can write lets
    /// them replace the folder, keys and tokens included.
    @Test func aStateFolderUnderAnOpenFolderIsRefused() throws {
        let dir = try TemporaryDirectory(prefix: "latchkey-open-parent-")
        defer { dir.remove() }
        let open = dir.path + "/shared"
        #expect(mkdir(open, 0o777) == 0)
        #expect(chmod(open, 0o777) == 0)
        let state = open + "/state"
        #expect(mkdir(state, 0o700) == 0)
        let cli = try LatchkeyCommand(stateDirectory: state)
        let result = try cli.run(["status"])
        #expect(result.exitCode == 9, "\(result) \(result.stderrText)")
        #expect(result.stderrText.contains("everyone can write \(open)"), "\(result.stderrText)")
        // Sticky, as /tmp: accepted.
        #expect(chmod(open, 0o1777) == 0)
        let sticky = try cli.run(["status"])
        #expect(sticky.exitCode == 3, "\(sticky) \(sticky.stderrText)")
    }
}
