import Testing

/// Runs the built `latchkey` binary with an isolated state directory.
///
/// Each test gets its own state dir (so profiles, keys and locks never leak between tests) and
/// an environment with no `LATCHKEY_*` variables from the outside except those given.
public struct LatchkeyCommand: Sendable {
    /// Path of the binary (``LatchkeyBinary/locate(environment:root:)``).
    public let binary: String
    /// The `--state-dir` every invocation uses.
    public let stateDirectory: String
    /// The environment every invocation gets.
    public let environment: [String: String]

    /// Locates the binary (failing under CI, skipping locally when it is missing).
    public init(stateDirectory: String, extraEnvironment: [String: String] = [:]) throws {
        let outer = HostEnvironment.current
        do {
            binary = try LatchkeyBinary.locate(environment: outer)
        } catch {
            throw try Requirement.missing(error.description, environment: outer)
        }
        self.stateDirectory = stateDirectory
        var env = outer.filter { !$0.key.hasPrefix("LATCHKEY_") || $0.key.hasPrefix("LATCHKEY_IT_") }
        env["NO_COLOR"] = "1"
        env["LATCHKEY_STATE_DIR"] = stateDirectory
        for (k, v) in extraEnvironment { env[k] = v }
        environment = env
    }

    /// Runs `latchkey ARGS` to completion.
    public func run(_ arguments: [String], stdin: [UInt8]? = nil, timeout: Duration = .seconds(60)) throws -> ProcessResult {
        try ProcessRunner.run(
            binary, ["--state-dir", stateDirectory] + arguments, environment: environment,
            stdin: stdin, timeout: timeout)
    }

    /// Starts `latchkey ARGS` and returns at once, for tests that read its output as it comes.
    public func start(_ arguments: [String], stdin: StandardInput = .null) throws -> ChildProcess {
        try ChildProcess.spawn(binary, ["--state-dir", stateDirectory] + arguments, environment: environment, stdin: stdin)
    }
}
