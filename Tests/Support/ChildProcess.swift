import Glibc
import Synchronization

/// What a spawned process's standard input is connected to.
public enum StandardInput: Sendable {
    /// `/dev/null`: the child sees end-of-file at once (as in CI, where stdin is not a TTY).
    case null
    /// A pipe the test writes with ``ChildProcess/write(_:)`` and closes with ``ChildProcess/closeStandardInput()``.
    case pipe
    /// These bytes, then end-of-file.
    case bytes([UInt8])
}

/// Why a process could not be started.
public struct SpawnError: Error, CustomStringConvertible, Sendable {
    /// The `errno` from `pipe2`, `open` or `posix_spawn`.
    public let code: Int32
    /// What was being started.
    public let executable: String
    /// A readable explanation.
    public var description: String { "cannot start \(executable): \(String(cString: strerror(code))) (errno \(code))" }
}

/// How a finished (or killed) process ended, with everything it wrote.
public struct ProcessResult: Sendable, CustomStringConvertible {
    /// The exit status when the process exited normally.
    public let exitCode: Int32?
    /// The signal that ended the process, when one did.
    public let terminatingSignal: Int32?
    /// True when the process outlived its timeout and was killed by the runner.
    public let timedOut: Bool
    /// Everything written to stdout.
    public let stdout: [UInt8]
    /// Everything written to stderr.
    public let stderr: [UInt8]
    /// Wall time from spawn to exit.
    public let elapsed: Duration

    /// stdout as UTF-8 text.
    public var stdoutText: String { String(decoding: stdout, as: UTF8.self) }
    /// stderr as UTF-8 text.
    public var stderrText: String { String(decoding: stderr, as: UTF8.self) }
    /// stdout split into non-empty lines.
    public var stdoutLines: [String] { stdoutText.split(separator: "\n").map(String.init) }

    /// A one-line summary for test failure messages, including stderr.
    public var description: String {
        let how = timedOut ? "timed out" : exitCode.map { "exit \($0)" } ?? "signal \(terminatingSignal ?? -1)"
        return "\(how) after \(elapsed); stderr: \(stderrText.suffix(2000))"
    }
}

/// A child process started with `posix_spawn`, with its stdout and stderr captured.
///
/// The child runs in its own process group, so a timeout can kill whatever it started too, and
/// with SIGINT/SIGTERM/SIGPIPE reset to their defaults whatever the test process ignores.
/// Methods block the calling thread while they wait; they are meant for test code.
public final class ChildProcess: Sendable {
    /// The child's process id (also its process group id).
    public let pid: pid_t
    /// The executable path it was started from.
    public let executable: String
    private let start: ContinuousClock.Instant
    private let io: Mutex<IOState>

    struct IOState {
        var stdinFD: Int32
        var stdoutFD: Int32
        var stderrFD: Int32
        var stdout: [UInt8] = []
        var stderr: [UInt8] = []
        var linesConsumed = 0  // bytes of stdout already returned by nextLine
        var status: (code: Int32?, signal: Int32?)? = nil
    }

    private init(pid: pid_t, executable: String, stdinFD: Int32, stdoutFD: Int32, stderrFD: Int32) {
        self.pid = pid
        self.executable = executable
        self.start = ContinuousClock.now
        self.io = Mutex(IOState(stdinFD: stdinFD, stdoutFD: stdoutFD, stderrFD: stderrFD))
    }

    /// Starts `executable` with `arguments` and exactly `environment` (nothing is inherited implicitly).
    public static func spawn(
        _ executable: String, _ arguments: [String],
        environment: [String: String],
        stdin: StandardInput = .null
    ) throws(SpawnError) -> ChildProcess {
        // A test writing to a child that already exited must get EPIPE, not die.
        signal(SIGPIPE, SIG_IGN)
        var outPipe: [Int32] = [-1, -1], errPipe: [Int32] = [-1, -1], inPipe: [Int32] = [-1, -1]
        guard cloexecPipe(&outPipe), cloexecPipe(&errPipe) else {
            throw SpawnError(code: errno, executable: executable)
        }
        var stdinChild: Int32
        switch stdin {
        case .null:
            stdinChild = open("/dev/null", O_RDONLY | O_CLOEXEC)
        case .pipe, .bytes:
            guard cloexecPipe(&inPipe) else { throw SpawnError(code: errno, executable: executable) }
            stdinChild = inPipe[0]
        }

        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_adddup2(&actions, stdinChild, 0)
        posix_spawn_file_actions_adddup2(&actions, outPipe[1], 1)
        posix_spawn_file_actions_adddup2(&actions, errPipe[1], 2)

        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        var defaults = sigset_t(), empty = sigset_t()
        sigemptyset(&defaults)
        sigemptyset(&empty)
        for sig in [SIGPIPE, SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGCHLD] { sigaddset(&defaults, sig) }
        posix_spawnattr_setsigdefault(&attributes, &defaults)
        posix_spawnattr_setsigmask(&attributes, &empty)
        posix_spawnattr_setpgroup(&attributes, 0)
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETPGROUP | POSIX_SPAWN_SETSIGDEF | POSIX_SPAWN_SETSIGMASK))

        let argv: [UnsafeMutablePointer<CChar>?] = ([executable] + arguments).map { strdup($0) } + [nil]
        let envp: [UnsafeMutablePointer<CChar>?] = environment.map { strdup("\($0.key)=\($0.value)") } + [nil]
        defer {
            for p in argv { free(p) }
            for p in envp { free(p) }
        }
        var pid = pid_t()
        let rc = posix_spawn(&pid, executable, &actions, &attributes, argv, envp)
        close(stdinChild)
        close(outPipe[1])
        close(errPipe[1])
        guard rc == 0 else {
            close(outPipe[0]); close(errPipe[0])
            if inPipe[1] >= 0 { close(inPipe[1]) }
            throw SpawnError(code: rc, executable: executable)
        }
        let child = ChildProcess(
            pid: pid, executable: executable, stdinFD: inPipe[1],
            stdoutFD: outPipe[0], stderrFD: errPipe[0])
        if case .bytes(let bytes) = stdin {
            child.write(bytes)
            child.closeStandardInput()
        }
        return child
    }

    /// Writes to the child's stdin (only with ``StandardInput/pipe``); returns false if it could not.
    @discardableResult
    public func write(_ bytes: [UInt8]) -> Bool {
        io.withLock { state in
            guard state.stdinFD >= 0 else { return false }
            var offset = 0
            while offset < bytes.count {
                let n = bytes[offset...].withUnsafeBytes { Glibc.write(state.stdinFD, $0.baseAddress, $0.count) }
                if n < 0 && errno == EINTR { continue }
                if n <= 0 { return false }
                offset += n
            }
            return true
        }
    }

    /// Closes the child's stdin, so it sees end-of-file.
    public func closeStandardInput() {
        io.withLock { state in
            if state.stdinFD >= 0 { close(state.stdinFD); state.stdinFD = -1 }
        }
    }

    /// Sends `signal` to the child itself (not its group).
    public func send(signal: Int32) {
        _ = kill(pid, signal)
    }

    /// The next complete line of stdout (without the newline), waiting up to `timeout`.
    /// Returns nil on timeout or when stdout closed without another full line.
    public func nextLine(timeout: Duration) -> String? {
        let deadline = ContinuousClock.now + timeout
        while true {
            let line: String? = io.withLock { state in
                let pending = state.stdout[state.linesConsumed...]
                guard let newline = pending.firstIndex(of: UInt8(ascii: "\n")) else { return nil }
                let text = String(decoding: state.stdout[state.linesConsumed..<newline], as: UTF8.self)
                state.linesConsumed = newline + 1
                return text
            }
            if let line { return line }
            let open = io.withLock { $0.stdoutFD >= 0 }
            if !open || ContinuousClock.now >= deadline { return nil }
            pump(until: min(deadline, ContinuousClock.now + .milliseconds(100)))
        }
    }

    /// Everything the child has written to stdout and stderr so far (reads what is available).
    public func outputSoFar() -> (stdout: [UInt8], stderr: [UInt8]) {
        pump(until: ContinuousClock.now)
        return io.withLock { ($0.stdout, $0.stderr) }
    }

    /// True while the child has not exited (reaps it when it has).
    public var isRunning: Bool { reap(blocking: false) == nil }

    /// Waits for the child to exit, collecting its output. After `timeout` the whole process
    /// group is killed with SIGKILL and the result says `timedOut`.
    public func waitForExit(timeout: Duration) -> ProcessResult {
        let deadline = ContinuousClock.now + timeout
        var timedOut = false
        var exitSeenAt: ContinuousClock.Instant?
        while true {
            pump(until: min(deadline, ContinuousClock.now + .milliseconds(50)))
            let pipesOpen = io.withLock { $0.stdoutFD >= 0 || $0.stderrFD >= 0 }
            if reap(blocking: false) != nil {
                // A grandchild may keep the pipes open; give them a moment, then stop reading.
                if !pipesOpen { break }
                let seen = exitSeenAt ?? ContinuousClock.now
                exitSeenAt = seen
                if ContinuousClock.now - seen > .milliseconds(500) { break }
            }
            if ContinuousClock.now >= deadline {
                timedOut = true
                _ = kill(-pid, SIGKILL)
                _ = kill(pid, SIGKILL)
                _ = reap(blocking: true)
                pump(until: ContinuousClock.now + .milliseconds(100))
                break
            }
        }
        let elapsed = ContinuousClock.now - start
        return io.withLock { state in
            closeAll(&state)
            return ProcessResult(
                exitCode: state.status?.code, terminatingSignal: state.status?.signal,
                timedOut: timedOut, stdout: state.stdout, stderr: state.stderr, elapsed: elapsed)
        }
    }

    /// Kills the child's process group if it is still running (used on cleanup paths).
    public func terminate() {
        if reap(blocking: false) == nil {
            _ = kill(-pid, SIGKILL)
            _ = kill(pid, SIGKILL)
            _ = reap(blocking: true)
        }
    }

    deinit {
        terminate()
        io.withLock { closeAll(&$0) }
    }

    // MARK: - internals

    /// pipe(2) with both ends close-on-exec (pipe2 is not imported without _GNU_SOURCE). The short
    /// window before fcntl is why waitForExit tolerates a pipe held open after the child exits.
    private static func cloexecPipe(_ fds: inout [Int32]) -> Bool {
        guard pipe(&fds) == 0 else { return false }
        for fd in fds { _ = fcntl(fd, F_SETFD, FD_CLOEXEC) }
        return true
    }

    private func closeAll(_ state: inout IOState) {
        for fd in [state.stdinFD, state.stdoutFD, state.stderrFD] where fd >= 0 { close(fd) }
        state.stdinFD = -1
        state.stdoutFD = -1
        state.stderrFD = -1
    }

    /// Returns the exit status once known; `blocking` waits for it.
    private func reap(blocking: Bool) -> (code: Int32?, signal: Int32?)? {
        io.withLock { state in
            if let status = state.status { return status }
            var raw: Int32 = 0
            var rc: pid_t
            repeat { rc = waitpid(pid, &raw, blocking ? 0 : WNOHANG) } while rc < 0 && errno == EINTR
            guard rc == pid else { return nil }
            // Decode as <sys/wait.h> does; the macros are not imported into Swift.
            let termSignal = raw & 0x7f
            let status: (code: Int32?, signal: Int32?) = termSignal == 0 ? ((raw >> 8) & 0xff, nil) : (nil, termSignal)
            state.status = status
            return status
        }
    }

    /// Reads whatever stdout/stderr have until `deadline` (at least one poll).
    private func pump(until deadline: ContinuousClock.Instant) {
        io.withLock { state in
            var first = true
            while first || ContinuousClock.now < deadline {
                first = false
                var fds: [pollfd] = []
                if state.stdoutFD >= 0 { fds.append(pollfd(fd: state.stdoutFD, events: Int16(POLLIN), revents: 0)) }
                if state.stderrFD >= 0 { fds.append(pollfd(fd: state.stderrFD, events: Int16(POLLIN), revents: 0)) }
                if fds.isEmpty { return }
                let remaining = deadline - ContinuousClock.now
                let ms = max(0, Int32(remaining.components.seconds * 1000 + remaining.components.attoseconds / 1_000_000_000_000_000))
                let ready = poll(&fds, nfds_t(fds.count), ms)
                if ready <= 0 { return }
                var buffer = [UInt8](repeating: 0, count: 65536)
                for p in fds where p.revents != 0 {
                    let n = buffer.withUnsafeMutableBytes { Glibc.read(p.fd, $0.baseAddress, $0.count) }
                    if n > 0 {
                        if p.fd == state.stdoutFD { state.stdout += buffer[..<n] } else { state.stderr += buffer[..<n] }
                    } else if n == 0 || (errno != EINTR && errno != EAGAIN) {
                        close(p.fd)
                        if p.fd == state.stdoutFD { state.stdoutFD = -1 } else { state.stderrFD = -1 }
                    }
                }
            }
        }
    }
}
