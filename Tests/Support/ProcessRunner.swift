/// Runs a program to completion: the common case of ``ChildProcess``.
public enum ProcessRunner {
    /// Spawns `executable`, feeds `stdin` (then end-of-file), and waits up to `timeout`.
    public static func run(
        _ executable: String, _ arguments: [String],
        environment: [String: String] = HostEnvironment.current,
        stdin: [UInt8]? = nil,
        timeout: Duration = .seconds(60)
    ) throws(SpawnError) -> ProcessResult {
        let child = try ChildProcess.spawn(
            executable, arguments, environment: environment,
            stdin: stdin.map { .bytes($0) } ?? .null)
        return child.waitForExit(timeout: timeout)
    }

    /// Runs `/bin/sh -c command` (for harness scripts whose paths are known to be safe).
    public static func shell(
        _ command: String,
        environment: [String: String] = HostEnvironment.current,
        timeout: Duration = .seconds(60)
    ) throws(SpawnError) -> ProcessResult {
        try run("/bin/sh", ["-c", command], environment: environment, timeout: timeout)
    }
}
