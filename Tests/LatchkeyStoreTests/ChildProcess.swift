import Glibc

/// posix_spawn for the multi-process tests (fork is unsafe in a Swift process with threads).
enum ChildProcess {
    /// Starts `path` with `arguments`; stdout/stderr go to /dev/null unless `quiet` is false.
    /// `pipeWriteEnd`, when given, becomes the child's fd 3.
    static func spawn(
        _ path: String, _ arguments: [String], extraEnvironment: [String: String] = [:],
        pipeWriteEnd: Int32? = nil, quiet: Bool = true
    ) -> pid_t? {
        var environment: [String] = []
        for name in ["PATH", "HOME", "LD_LIBRARY_PATH", "TMPDIR"] {
            if let value = getenv(name) { environment.append(name + "=" + String(cString: value)) }
        }
        environment.append("SWIFT_BACKTRACE=enable=no")
        for (name, value) in extraEnvironment { environment.append(name + "=" + value) }

        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        if quiet {
            posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0)
            posix_spawn_file_actions_addopen(&actions, 2, "/dev/null", O_WRONLY, 0)
        }
        if let pipeWriteEnd { posix_spawn_file_actions_adddup2(&actions, pipeWriteEnd, 3) }

        let argv = ([path] + arguments).map { strdup($0) } + [nil]
        let envp = environment.map { strdup($0) } + [nil]
        defer { (argv + envp).forEach { free($0) } }
        var pid: pid_t = 0
        let code = posix_spawn(&pid, path, &actions, nil, argv, envp)
        return code == 0 ? pid : nil
    }

    /// Waits for `pid` and returns its raw wait status.
    @discardableResult
    static func wait(_ pid: pid_t) -> Int32 {
        var status: Int32 = 0
        while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
        return status
    }

    /// The exit code when the child exited normally, else nil.
    static func exitCode(_ status: Int32) -> Int32? {
        status & 0x7f == 0 ? (status >> 8) & 0xff : nil
    }

    /// True once the child has exited (and reaps it).
    static func hasExited(_ pid: pid_t) -> Bool {
        var status: Int32 = 0
        return waitpid(pid, &status, WNOHANG) == pid
    }

    /// This test runner's own executable, for re-invoking it in a helper mode.
    static func currentExecutable() -> String {
        var buffer = [UInt8](repeating: 0, count: 4096)
        let count = buffer.withUnsafeMutableBytes {
            readlink("/proc/self/exe", $0.baseAddress!.assumingMemoryBound(to: CChar.self), $0.count - 1)
        }
        precondition(count > 0, "readlink /proc/self/exe failed")
        return String(decoding: buffer[0..<count], as: UTF8.self)
    }

    /// Runs a command to completion and returns its exit code (nil if killed or not started).
    static func run(_ path: String, _ arguments: [String]) -> Int32? {
        guard let pid = spawn(path, arguments) else { return nil }
        return exitCode(wait(pid))
    }
}
