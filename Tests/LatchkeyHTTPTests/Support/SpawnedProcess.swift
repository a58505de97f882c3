import Glibc

/// A child process started with posix_spawn (no Foundation `Process` here). Its stdin is a pipe we keep
/// open, so harness servers can exit when the test process goes away; stdout is a pipe we read lines from.
final class SpawnedProcess: @unchecked Sendable {
    let pid: pid_t
    private let stdinWrite: Int32
    private let stdoutRead: Int32
    private var buffered: [UInt8] = []
    private var exited = false
    private var stdinClosed = false

    init(_ arguments: [String], environment: [String: String]? = nil, stderrPath: String = "/dev/null") throws {
        var inPipe: [Int32] = [0, 0]
        var outPipe: [Int32] = [0, 0]
        // O_CLOEXEC: tests spawn in parallel, and another child must not inherit these pipe ends.
        guard pipe(&inPipe) == 0, pipe(&outPipe) == 0 else { throw SpawnError.failed("pipe") }
        for fd in inPipe + outPipe { _ = fcntl(fd, F_SETFD, FD_CLOEXEC) }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_adddup2(&actions, inPipe[0], 0)
        posix_spawn_file_actions_adddup2(&actions, outPipe[1], 1)
        posix_spawn_file_actions_addopen(&actions, 2, stderrPath, O_WRONLY | O_CREAT | O_APPEND, 0o600)

        let env = environment ?? SpawnedProcess.currentEnvironment()
        var argv = arguments.map { strdup($0) } + [nil]
        var envp = env.map { strdup("\($0.key)=\($0.value)") } + [nil]
        defer {
            argv.forEach { free($0) }
            envp.forEach { free($0) }
        }
        var child = pid_t()
        let rc = posix_spawnp(&child, arguments[0], &actions, nil, &argv, &envp)
        close(inPipe[0])
        close(outPipe[1])
        guard rc == 0 else {
            close(inPipe[1]); close(outPipe[0])
            throw SpawnError.failed("posix_spawn \(arguments[0]): \(String(cString: strerror(rc)))")
        }
        pid = child
        stdinWrite = inPipe[1]
        stdoutRead = outPipe[0]
    }

    deinit {
        terminate()
        if !stdinClosed { close(stdinWrite) }
        close(stdoutRead)
    }

    /// Reads stdout until a line satisfying `predicate` appears, or `timeout` seconds pass.
    func readLine(timeout: Double, where predicate: (String) -> Bool = { _ in true }) throws -> String {
        var ts = timespec()
        clock_gettime(CLOCK_MONOTONIC, &ts)
        let end = Double(ts.tv_sec) + Double(ts.tv_nsec) / 1e9 + timeout
        while true {
            while let nl = buffered.firstIndex(of: 0x0A) {
                let line = String(decoding: buffered[..<nl], as: UTF8.self)
                buffered.removeFirst(nl + 1)
                if predicate(line) { return line }
            }
            clock_gettime(CLOCK_MONOTONIC, &ts)
            let left = end - (Double(ts.tv_sec) + Double(ts.tv_nsec) / 1e9)
            if left <= 0 { throw SpawnError.failed("timed out waiting for output") }
            var pfd = pollfd(fd: stdoutRead, events: Int16(POLLIN), revents: 0)
            if poll(&pfd, 1, Int32(left * 1000) + 1) <= 0 { continue }
            var chunk = [UInt8](repeating: 0, count: 4096)
            let n = read(stdoutRead, &chunk, chunk.count)
            if n <= 0 { throw SpawnError.failed("process ended before printing the expected line") }
            buffered += chunk[..<n]
        }
    }

    /// Sends SIGTERM, then SIGKILL if needed, and reaps the child (idempotent).
    func terminate() {
        guard !exited else { return }
        exited = true
        kill(pid, SIGTERM)
        var status: Int32 = 0
        for _ in 0..<50 {
            if waitpid(pid, &status, WNOHANG) == pid { return }
            usleep(20_000)
        }
        kill(pid, SIGKILL)
        _ = waitpid(pid, &status, 0)
    }

    /// Runs a command to completion and returns its exit status.
    static func run(_ arguments: [String], stderrPath: String = "/dev/null", stdinEmpty: Bool = false) throws -> Int32 {
        let p = try SpawnedProcess(arguments, stderrPath: stderrPath)
        if stdinEmpty { close(p.stdinWrite); p.stdinClosed = true }
        var status: Int32 = 0
        _ = waitpid(p.pid, &status, 0)
        p.exited = true
        return (status >> 8) & 0xFF
    }

    static func currentEnvironment() -> [String: String] {
        var env: [String: String] = [:]
        var p = environ
        while let entry = p.pointee {
            let s = String(cString: entry)
            if let eq = s.firstIndex(of: "=") { env[String(s[..<eq])] = String(s[s.index(after: eq)...]) }
            p += 1
        }
        return env
    }
}

enum SpawnError: Error, CustomStringConvertible {
    case failed(String)
    var description: String {
        switch self {
        case .failed(let s): return s
        }
    }
}
