import Glibc
import LatchkeyJOSE
import LatchkeyTestSupport
import Testing

/// `fetch --output` and `login --qr-file` stage the file next to it under a name nobody can
/// predict: a file planted at the old guessable name `.NAME.latchkey-PID` neither blocks them nor
/// is deleted. The planting shell `exec`s latchkey, so the process keeps the shell's PID.
@Suite("staging names of --output and --qr-file", .serialized)
struct StagingNameProcessTests {
    /// Runs `latchkey ARGS` after planting "planted" at `prefix + ".latchkey-" + <its PID>`.
    static func runPlanting(_ cli: LatchkeyCommand, prefix: String, _ arguments: [String]) throws -> ProcessResult {
        let script = #"printf planted > "$1.latchkey-$$" || exit 99; p=$1; shift; exec "$@""#
        return try ProcessRunner.run(
            "/bin/sh", ["-c", script, "sh", prefix, cli.binary, "--state-dir", cli.stateDirectory] + arguments,
            environment: cli.environment, timeout: .seconds(60))
    }

    /// The names in `dir`, sorted.
    static func listing(_ dir: String) throws -> [String] {
        try ProcessRunner.run("/bin/ls", ["-A", dir]).stdoutLines.sorted()
    }

    /// The planted file: still there, still holding what was planted.
    static func planted(in dir: String, prefix name: String) throws -> [String] {
        try listing(dir).filter { $0.hasPrefix(name + ".latchkey-") }
    }

    static func folder(_ cli: LatchkeyCommand) -> String {
        let dir = PackagePaths.parent(of: cli.stateDirectory) + "/out"
        _ = mkdir(dir, 0o700)
        return dir
    }

    @Test func fetchOutputIsNotBlockedAndThePlantedFileIsKept() throws {
        try withScriptedIdP("ok", ["--approve-after", "1"]) { idp, cli in
            try FetchProcessTests.login(cli, idp)
            let dir = Self.folder(cli)
            let result = try Self.runPlanting(
                cli, prefix: dir + "/.out.json", ["fetch", "--output", dir + "/out.json", idp.issuer + "/resource"])
            #expect(result.exitCode == 0, "\(result) \(result.stderrText)")
            #expect(FileText.read(dir + "/out.json") == #"{"resource": "scripted", "subject": "scripted-user-1"}"#)
            let planted = try Self.planted(in: dir, prefix: ".out.json"), names = try Self.listing(dir)
            #expect(planted.count == 1, "\(names)")
            #expect(planted.allSatisfy { FileText.read(dir + "/" + $0) == "planted" }, "the planted file was changed")
            #expect(names == (planted + ["out.json"]).sorted(), "a temporary file was left behind")
        }
    }

    @Test func aFailedFetchDeletesOnlyItsOwnTemporaryFile() throws {
        try withScriptedIdP("ok", ["--approve-after", "1"]) { idp, cli in
            try FetchProcessTests.login(cli, idp)
            let dir = Self.folder(cli)
            let result = try Self.runPlanting(cli, prefix: dir + "/.cut.bin", ["fetch", "--output", dir + "/cut.bin", idp.issuer + "/drop"])
            #expect(result.exitCode != 0 && result.exitCode != 99, "\(result) \(result.stderrText)")
            let planted = try Self.planted(in: dir, prefix: ".cut.bin"), names = try Self.listing(dir)
            #expect(planted.count == 1 && planted.allSatisfy { FileText.read(dir + "/" + $0) == "planted" }, "\(names)")
            #expect(names == planted, "a temporary or half-written file was left behind")
        }
    }

    @Test func theQRFileIsWrittenAndThePlantedFileIsKept() throws {
        try withScriptedIdP("ok", ["--approve-after", "2"]) { idp, cli in
            let dir = Self.folder(cli)
            let result = try Self.runPlanting(
                cli, prefix: dir + "/.code.svg",
                [
                    "login", "--scope", "openid", "--issuer", idp.issuer, "--client-id", "c",
                    "--qr-file", dir + "/code.svg"
                ])
            #expect(result.exitCode == 0, "\(result) \(result.stderrText)")
            #expect(!result.stderrText.contains("warning"), "the image was not written: \(result.stderrText)")
            let planted = try Self.planted(in: dir, prefix: ".code.svg"), names = try Self.listing(dir)
            #expect(planted.count == 1 && planted.allSatisfy { FileText.read(dir + "/" + $0) == "planted" }, "\(names)")
            // The image is deleted when the login ends; nothing else of latchkey's is left.
            #expect(names == planted, "\(names)")
        }
    }
}
