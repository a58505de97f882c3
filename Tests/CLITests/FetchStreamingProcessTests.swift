import Glibc
import LatchkeyTestSupport
import Testing

/// `latchkey fetch` streams the body as it arrives (HTTPTransport.send(_:bodySink:)): a body far
/// larger than any internal buffer arrives intact in bounded memory, and `--output` never leaves
/// a half-written file when the connection breaks mid-body.
@Suite("latchkey fetch: streamed bodies", .serialized)
struct FetchStreamingProcessTests {
    /// The SHA-256 of the scripted `/large?mib=N` body (bytes i % 251), computed independently.
    static func expectedDigest(mib: Int) throws -> String {
        let script = "import hashlib;p=bytes(range(251));s=\(mib)*1024*1024;print(hashlib.sha256((p*(s//251+1))[:s]).hexdigest())"
        return try ProcessRunner.run("/usr/bin/env", ["python3", "-c", script]).stdoutLines.first ?? ""
    }

    static func digest(_ path: String) throws -> String {
        String(try ProcessRunner.run("/usr/bin/sha256sum", [path]).stdoutText.prefix(64))
    }

    /// Files in `folder` whose names start with `.name.latchkey-` (the staging file of --output).
    static func stagingFiles(_ folder: String, name: String) throws -> [String] {
        try ProcessRunner.run("/bin/ls", ["-a", folder]).stdoutText.split(separator: "\n").map(String.init)
            .filter { $0.hasPrefix("." + name + ".latchkey-") }
    }

    /// `latchkey ARGS` under `/usr/bin/time`, with its peak resident set size in KiB.
    static func runMeasured(_ cli: LatchkeyCommand, _ arguments: [String], scratch: String) throws -> (ProcessResult, Int) {
        let time = try Requirement.requireOrSkip(
            access("/usr/bin/time", X_OK) == 0 ? "/usr/bin/time" : nil,
            "/usr/bin/time (GNU time) is needed to measure peak memory")
        let report = scratch + "/rss.txt"
        let result = try ProcessRunner.run(
            time, ["-f", "%M", "-o", report, cli.binary, "--state-dir", cli.stateDirectory] + arguments,
            environment: cli.environment, timeout: .seconds(120))
        let kib = Int((FileText.read(report) ?? "").split(separator: "\n").last.map(String.init) ?? "") ?? -1
        return (result, kib)
    }

    @Test func fortyMiBStreamIntactWithBoundedMemory() throws {
        try withScriptedIdP("ok", ["--approve-after", "1"]) { idp, cli in
            try FetchProcessTests.login(cli, idp)
            let scratch = FetchProcessTests.scratch(cli)
            let expected = try Self.expectedDigest(mib: 40)
            // The baseline: the same process fetching a tiny resource.
            let (small, baseline) = try Self.runMeasured(
                cli, ["fetch", "--output", scratch + "/small", idp.issuer + "/resource"],
                scratch: scratch)
            #expect(small.exitCode == 0, "\(small)")
            // 40 MiB to a file, and 40 MiB to stdout (a pipe the test reads).
            let path = scratch + "/large.bin"
            let (toFile, fileRSS) = try Self.runMeasured(cli, ["fetch", "--output", path, idp.issuer + "/large?mib=40"], scratch: scratch)
            #expect(toFile.exitCode == 0, "\(toFile.stderrText)")
            #expect(try Self.digest(path) == expected)
            var info = stat()
            #expect(stat(path, &info) == 0 && info.st_size == 40 * 1024 * 1024 && info.st_mode & 0o777 == 0o600)
            let (toStdout, stdoutRSS) = try Self.runMeasured(cli, ["fetch", idp.issuer + "/large?mib=40"], scratch: scratch)
            #expect(toStdout.exitCode == 0, "\(toStdout.stderrText)")
            #expect(toStdout.stdout.count == 40 * 1024 * 1024)
            var mismatches = 0
            for (i, byte) in toStdout.stdout.enumerated() where byte != UInt8(i % 251) { mismatches += 1 }
            #expect(mismatches == 0)
            print("fetch peak RSS: small \(baseline) KiB, 40 MiB to --output \(fileRSS) KiB, 40 MiB to stdout \(stdoutRSS) KiB")
            // Buffered, the body alone would add 40 MiB (more with the copies); streamed, the
            // process grows by no more than a few buffers.
            #expect(baseline > 0 && fileRSS > 0 && stdoutRSS > 0)
            #expect(fileRSS - baseline < 8 * 1024, "grew by \(fileRSS - baseline) KiB")
            #expect(stdoutRSS - baseline < 8 * 1024, "grew by \(stdoutRSS - baseline) KiB")
        }
    }

    @Test func droppedMidBodyExitsSixAndLeavesNoFile() throws {
        try withScriptedIdP("ok", ["--approve-after", "1"]) { idp, cli in
            try FetchProcessTests.login(cli, idp)
            let scratch = FetchProcessTests.scratch(cli)
            // A new file: nothing is left behind, not even the staging file.
            let fresh = scratch + "/fresh.bin"
            let cut = try cli.run(["fetch", "--output", fresh, idp.issuer + "/drop-mid-body?mib=4"])
            #expect(cut.exitCode == 6, "\(cut)")
            expectErrorLines(cut)
            #expect(access(fresh, F_OK) != 0, "no partial --output file")
            #expect(try Self.stagingFiles(scratch, name: "fresh.bin").isEmpty)
            // An existing file keeps its old contents.
            let old = scratch + "/old.bin"
            #expect(FileText.write("previous answer", to: old))
            #expect(try cli.run(["fetch", "--output", old, idp.issuer + "/drop-mid-body?mib=4"]).exitCode == 6)
            #expect(FileText.read(old) == "previous answer")
            #expect(try Self.stagingFiles(scratch, name: "old.bin").isEmpty)
            // To stdout the bytes that arrived were already written (as they stream), and the
            // exit code says the answer is incomplete.
            let piped = try cli.run(["fetch", idp.issuer + "/drop-mid-body?mib=4"])
            #expect(piped.exitCode == 6, "\(piped)")
            #expect(piped.stdout.count > 0 && piped.stdout.count < 4 * 1024 * 1024, "\(piped.stdout.count)")
        }
    }

    @Test func interruptedMidBodyExits130AndLeavesNoFile() throws {
        try withScriptedIdP("ok", ["--approve-after", "1"]) { idp, cli in
            try FetchProcessTests.login(cli, idp)
            let scratch = FetchProcessTests.scratch(cli)
            let path = scratch + "/slow.bin"
            let child = try cli.start(["fetch", "--output", path, idp.issuer + "/slow-body?wait=20"])
            // Wait until the staging file holds the first 64 KiB: the transfer is mid-body.
            var staged = false
            let deadline = ContinuousClock.now + .seconds(20)
            while ContinuousClock.now < deadline && !staged {
                if let name = try Self.stagingFiles(scratch, name: "slow.bin").first {
                    var info = stat()
                    staged = stat(scratch + "/" + name, &info) == 0 && info.st_size >= 64 * 1024
                }
                if !staged { usleep(50_000) }
            }
            #expect(staged, "the body was streaming into the staging file")
            child.send(signal: SIGINT)
            let result = child.waitForExit(timeout: .seconds(10))
            #expect(result.exitCode == 130, "\(result)")
            #expect(access(path, F_OK) != 0)
            #expect(try Self.stagingFiles(scratch, name: "slow.bin").isEmpty, "the staging file is deleted")
        }
    }

    @Test func overTheLimitWithoutContentLengthFailsAndLeavesNoFile() throws {
        try withScriptedIdP("ok", ["--approve-after", "1"]) { idp, cli in
            try FetchProcessTests.login(cli, idp)
            let scratch = FetchProcessTests.scratch(cli)
            let path = scratch + "/over.bin"
            // Chunked, so the limit is only reached while streaming, not from Content-Length.
            let over = try cli.run(["fetch", "--output", path, idp.issuer + "/large-chunked?mib=65"], timeout: .seconds(120))
            #expect(over.exitCode == 7, "\(over.stderrText)")
            #expect(over.stderrText.contains("body larger than 67108864 bytes"), "\(over.stderrText)")
            #expect(access(path, F_OK) != 0)
            #expect(try Self.stagingFiles(scratch, name: "over.bin").isEmpty)
        }
    }

    @Test func anUnwritableStdoutStopsTheTransfer() throws {
        try withScriptedIdP("ok", ["--approve-after", "1"]) { idp, cli in
            try FetchProcessTests.login(cli, idp)
            let command = "'\(cli.binary)' --state-dir '\(cli.stateDirectory)' fetch '\(idp.issuer)/large?mib=5'"
            // A full disk behind `>`.
            let full = try ProcessRunner.run("/bin/bash", ["-c", command + " > /dev/full"], environment: cli.environment)
            #expect(full.exitCode == 9, "\(full)")
            #expect(full.stderrText.contains("cannot write the response to standard output: "), "\(full.stderrText)")
            // A reader that goes away after 10 bytes: SIGPIPE ends the process, as any Unix filter
            // (the shell reports 128 + 13), so it is not a success either.
            let cut = try ProcessRunner.run(
                "/bin/bash", ["-c", command + " | head -c 10 > /dev/null; echo ${PIPESTATUS[0]}"],
                environment: cli.environment)
            #expect(cut.stdoutLines.last == "141", "\(cut)")
        }
    }

    @Test func retriedAnswersNeverReachTheOutput() throws {
        // The first 401 (invalid_token) is retried after a refresh: only the second answer's body
        // is printed, and --include shows only its head.
        try withScriptedIdP("resource-rejects-first", ["--approve-after", "1"]) { idp, cli in
            try FetchProcessTests.login(cli, idp)
            let result = try cli.run(["fetch", "--include", idp.issuer + "/resource"])
            #expect(result.exitCode == 0, "\(result)")
            #expect(result.stdoutText.hasPrefix("HTTP/1.1 200\r\n"), "\(result.stdoutText)")
            #expect(!result.stdoutText.contains("401") && !result.stdoutText.contains("invalid_token"), "\(result.stdoutText)")
        }
    }
}
