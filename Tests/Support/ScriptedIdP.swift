import Glibc
import Testing

/// One running `Tests/Harness/scripted_idp.py`, started for one test and stopped by ``stop()``.
///
/// The server plays one scenario (`scripted_idp.py --list`), listens on an ephemeral loopback
/// port, and logs every request as a JSON line; tests read ``logLines()`` to assert on what the
/// client actually sent (poll spacing, headers, refresh counts).
public final class ScriptedIdP: Sendable {
    /// The scenario being played.
    public let scenario: String
    /// The port it listens on.
    public let port: Int
    /// The JSON-lines request log.
    public let logPath: String
    private let process: ChildProcess
    private let directory: TemporaryDirectory

    /// The issuer URL: `http://127.0.0.1:PORT` (scenarios like `issuer-mismatch` advertise another).
    public var issuer: String { "http://127.0.0.1:\(port)" }

    /// Starts the server with `scenario` and extra flags (e.g. `["--interval", "1"]`).
    /// Fails (CI) or skips (local) when python3 or the `cryptography` package is unavailable.
    public init(
        scenario: String, arguments: [String] = [],
        environment: [String: String] = HostEnvironment.current
    ) throws {
        let script = PackagePaths.harness() + "/scripted_idp.py"
        let python = environment["LATCHKEY_IT_PYTHON"].flatMap { $0.isEmpty ? nil : $0 } ?? "/usr/bin/python3"
        guard PackagePaths.exists(python) else {
            throw try Requirement.missing("python3 not found at \(python)", environment: environment)
        }
        directory = try TemporaryDirectory(prefix: "latchkey-scripted-")
        logPath = directory.path + "/requests.jsonl"
        self.scenario = scenario
        process = try ChildProcess.spawn(
            python, ["-u", script, "--scenario", scenario, "--log", logPath] + arguments,
            environment: environment)
        guard let line = process.nextLine(timeout: .seconds(20)), let port = Int(line) else {
            let result = process.waitForExit(timeout: .seconds(2))
            directory.remove()
            throw try Requirement.missing(
                "scripted_idp.py did not start (\(scenario)): \(result.stderrText.suffix(500))",
                environment: environment)
        }
        self.port = port
    }

    /// The request log so far, one JSON object per line.
    public func logLines() -> [String] {
        (FileText.read(logPath) ?? "").split(separator: "\n").map(String.init)
    }

    /// Stops the server and deletes its log folder.
    public func stop() {
        process.terminate()
        directory.remove()
    }

    deinit { process.terminate() }
}
