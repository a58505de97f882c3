import Glibc

/// A prompt on the terminal that does not echo what is typed (for passphrases). Echo and signal
/// keys are turned off while reading, so Ctrl-C arrives as a byte: the terminal is restored before
/// the process exits with 130.
///
/// SIGINT and SIGTERM are blocked in every thread (`TerminationSignals`), so a blocking `read`
/// would never see them: a synchronous command has no watcher to take them, and an asynchronous
/// one's watcher can only cancel a task stuck in `read`. So the prompt waits in short `poll`s and
/// looks for both between them; either way the terminal is restored before the process goes, and
/// nothing after the prompt runs (a command that lost its passphrase must not carry on).
enum TerminalPrompt {
    /// How often the wait looks for a signal, in milliseconds.
    static let signalCheckInterval: Int32 = 100

    /// Reads one line from stdin without echo, or nil at end of input. SIGINT or SIGTERM while it
    /// waits (pending with nobody to take it, or taken by the command's `TerminationSignals`
    /// watcher, which cancels the task) restores the terminal and ends the process: 130 or 143.
    static func readHidden(prompt: String) -> [UInt8]? {
        Console.write(2, prompt)
        var saved = termios()
        let haveTerminal = tcgetattr(0, &saved) == 0
        if haveTerminal {
            var quiet = saved
            quiet.c_lflag &= ~tcflag_t(ECHO | ISIG)
            tcsetattr(0, TCSAFLUSH, &quiet)
        }
        let restore = {
            if haveTerminal { tcsetattr(0, TCSAFLUSH, &saved) }
            Console.write(2, "\n")
        }
        defer { restore() }
        var line: [UInt8] = []
        while true {
            var input = pollfd(fd: 0, events: Int16(POLLIN), revents: 0)
            let ready = poll(&input, 1, signalCheckInterval)
            // A watcher took the signal and cancelled the task: the command must not go on as if
            // no passphrase had been typed (logout would delete the token file), so end here.
            let cancelledBy = Task.isCancelled ? TerminationSignals.current?.exitCode : nil
            if let code = cancelledBy ?? unclaimedTerminationSignal().map({ 128 + $0 }) {
                restore()
                exit(FailureReport(TerminationSignals.failure(exitCode: code)).emit())
            }
            if Task.isCancelled { return nil }
            if ready < 0 && errno == EINTR { continue }
            if ready == 0 { continue }
            var byte: UInt8 = 0
            let n = read(0, &byte, 1)
            if n < 0 && (errno == EINTR || errno == EAGAIN) { continue }
            if n <= 0 { return line.isEmpty ? nil : line }
            switch byte {
            case 0x0A, 0x0D: return line
            case 0x03:  // Ctrl-C: nothing has been written yet, so leave at once.
                restore()
                exit(130)
            case 0x04: return line.isEmpty ? nil : line
            case 0x7F, 0x08: if !line.isEmpty { line.removeLast() }
            default: line.append(byte)
            }
        }
    }

    /// SIGINT or SIGTERM when one is pending and no watcher thread takes it, taken here; else nil.
    /// A watcher blocked in `sigwait` takes a signal within microseconds and cancels the task, so
    /// a signal still pending after a short pause has nobody else to handle it.
    static func unclaimedTerminationSignal() -> Int32? {
        var pending = sigset_t()
        guard sigpending(&pending) == 0, sigismember(&pending, SIGINT) == 1 || sigismember(&pending, SIGTERM) == 1 else {
            return nil
        }
        usleep(50_000)
        var set = TerminationSignals.signalSet()
        var now = timespec(tv_sec: 0, tv_nsec: 0)
        let signal = sigtimedwait(&set, nil, &now)
        return signal > 0 ? signal : nil
    }
}
