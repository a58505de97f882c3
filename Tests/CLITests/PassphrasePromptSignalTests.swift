import FoundationEssentials
import Glibc
import Latchkey
import LatchkeyCrypto
import LatchkeyHTTP
import LatchkeyJOSE
import LatchkeyTestSupport
import Testing

/// SIGTERM or SIGINT while the passphrase prompt waits, on a real pseudo-terminal
/// (Tests/Harness/pty/signal_at_prompt.py): the process ends at once with 143 or 130 and leaves the
/// terminal as it found it, echo on. Before, a synchronous command (`token`, `status`) kept the
/// signal blocked and pending while it read the terminal, so only SIGKILL ended it, with echo off.
// Serialized: each case blocks a thread for seconds (a child on a pty), and in parallel they
// starve the cooperative pool that other suites' async tests run on.
@Suite("latchkey binary: signals at the passphrase prompt", .serialized)
struct PassphrasePromptSignalTests {
    static let prompt = "Passphrase for the token file: "

    /// A token file sealed with a passphrase, made once: PBKDF2 (600,000 iterations) takes seconds
    /// of a cooperative thread, which other suites' async tests need meanwhile. The file names its
    /// profile, not its folder, so every test can use a copy.
    static let sealedTokenFile: [UInt8]? = {
        guard let dir = try? TemporaryDirectory() else { return nil }
        defer { dir.remove() }
        let session = StoredSessionFixture.session()
        let secret = SecretBytes(Array("prompt-signal-test".utf8))
        let store = EncryptedFileTokenStore(
            stateDirectory: dir.path, profile: "default", keySource: .passphrase,
            passphrase: { secret })
        guard (try? store.save(session)) != nil else { return nil }
        return FileBytes.read(store.tokenFilePath)
    }()

    /// A profile whose token file is sealed with a passphrase, so reading it prompts.
    func signInWithPassphrase(_ cli: LatchkeyCommand) throws {
        StoredSessionFixture.writeProfile(cli, keySource: "passphrase")
        let state = cli.stateDirectory
        let bytes = try #require(Self.sealedTokenFile, "could not seal the token file")
        let fd = open(state + "/default.tokens", O_WRONLY | O_CREAT | O_EXCL, 0o600)
        try #require(fd >= 0)
        defer { close(fd) }
        try #require(bytes.withUnsafeBytes { Glibc.write(fd, $0.baseAddress, $0.count) } == bytes.count)
    }

    /// Runs `latchkey ARGS` on a pty, signals it at the prompt, and returns the harness's report.
    func signalAtPrompt(_ cli: LatchkeyCommand, _ arguments: [String], signal: String) async throws -> JSONObject {
        try await atPrompt(cli, arguments, action: ["--signal", signal])
    }

    /// Runs `latchkey ARGS` on a pty and does `action` (the harness's `--signal` or `--type`) at the
    /// prompt. The wait sleeps instead of blocking: a case takes seconds, and a blocked thread of the
    /// cooperative pool is one that other suites' async tests (with deadlines) cannot run on.
    func atPrompt(_ cli: LatchkeyCommand, _ arguments: [String], action: [String]) async throws -> JSONObject {
        let python = HostEnvironment.current["LATCHKEY_IT_PYTHON"].flatMap { $0.isEmpty ? nil : $0 } ?? "/usr/bin/python3"
        _ = try Requirement.requireOrSkip(access(python, X_OK) == 0 ? python : nil, "python3 not found at \(python)")
        let script = PackagePaths.harness() + "/pty/signal_at_prompt.py"
        let child = try ChildProcess.spawn(
            python,
            [script, "--prompt", Self.prompt] + action + [
                "--grace", "10", "--",
                cli.binary, "--state-dir", cli.stateDirectory
            ] + arguments,
            environment: cli.environment)
        let deadline = ContinuousClock.now + .seconds(90)
        while child.isRunning && ContinuousClock.now < deadline { try await Task.sleep(for: .milliseconds(50)) }
        let result = child.waitForExit(timeout: .seconds(5))
        try #require(result.exitCode == 0, "harness: \(result)")
        return try JSONParser().parseObject(result.stdout)
    }

    /// `withCLI` for an async body.
    func withAsyncCLI(_ body: (LatchkeyCommand) async throws -> Void) async throws {
        let dir = try TemporaryDirectory()
        defer { dir.remove() }
        try await body(try LatchkeyCommand(stateDirectory: dir.path + "/state"))
    }

    @Test(
        arguments: [
            (["token"], "TERM", 143), (["status"], "TERM", 143), (["token"], "INT", 130),
            // Asynchronous commands: the signal watcher cancels the task; the prompt must notice.
            (["logout", "--no-revoke"], "TERM", 143), (["refresh"], "INT", 130)
        ] as [([String], String, Int)])
    func signalAtThePromptExitsAtOnceWithEchoRestored(arguments: [String], signal: String, expected: Int) async throws {
        try await withAsyncCLI { cli in
            try signInWithPassphrase(cli)
            let tokenFile = cli.stateDirectory + "/default.tokens"
            let before = FileBytes.read(tokenFile)
            let report = try await signalAtPrompt(cli, arguments, signal: signal)
            let context = "\(arguments) SIG\(signal): \(report)"
            try #require(report["prompt_seen"] == .bool(true), "no prompt: \(context)")
            #expect(report["echo_at_prompt"] == .bool(false), "echo was on while the passphrase was typed: \(context)")
            #expect(report["timed_out"] == .bool(false), "still running 10 s after the signal: \(context)")
            #expect(report["exit_code"]?.int64Value == Int64(expected), "\(context)")
            let seconds = report["seconds_to_exit"]?.doubleValue ?? .infinity
            #expect(seconds < 2, "took \(seconds) s to exit: \(context)")
            #expect(report["echo_after"] == .bool(true), "left the terminal with echo off: \(context)")
            let said = expected == 143 ? "latchkey: terminated by SIGTERM" : "latchkey: interrupted by SIGINT"
            #expect(report["output"]?.stringValue?.contains(said) == true, "\(context)")
            #expect(before != nil && FileBytes.read(tokenFile) == before, "the token file changed: \(context)")
        }
    }

    /// The control: the prompt, now waiting in `poll`, still reads a typed passphrase, unechoed.
    @Test func typedPassphraseIsReadWithoutEcho() async throws {
        try await withAsyncCLI { cli in
            try signInWithPassphrase(cli)
            let report = try await atPrompt(cli, ["token"], action: ["--type", "prompt-signal-test\r"])
            let output = report["output"]?.stringValue ?? ""
            #expect(report["exit_code"]?.int64Value == 0, "\(report)")
            #expect(output.contains("access-token-1"), "\(report)")
            #expect(!output.contains("prompt-signal-test"), "the passphrase was echoed: \(report)")
            #expect(report["echo_after"] == .bool(true), "\(report)")
        }
    }
}
