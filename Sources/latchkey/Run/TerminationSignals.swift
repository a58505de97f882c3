import Glibc
import Synchronization

/// SIGINT and SIGTERM handling without a signal handler: the signals are blocked in every thread
/// (before any other thread exists) and one dedicated thread takes them with `sigwait`. It then
/// cancels the running command's task, so the library unwinds normally — an atomic write either
/// completes or never renames — and the command exits 130 (SIGINT) or 143 (SIGTERM). A second
/// signal, or a task that does not finish within the grace period, ends the process at once.
final class TerminationSignals: Sendable {
    private struct State {
        var received: Int32 = 0
        var cancel: (@Sendable () -> Void)?
    }
    private let state = Mutex(State())
    /// Seconds a cancelled task gets to unwind before the process exits anyway.
    static let gracePeriod: UInt32 = 5

    /// Blocks SIGINT and SIGTERM in the calling thread; threads created later inherit the mask.
    /// Call first thing in `main`, before the concurrency runtime starts its threads.
    static func blockInCurrentThread() {
        var set = signalSet()
        pthread_sigmask(SIG_BLOCK, &set, nil)
    }

    /// The signal mask `posix_spawn` children should get: nothing blocked.
    static func signalSet() -> sigset_t {
        var set = sigset_t()
        sigemptyset(&set)
        sigaddset(&set, SIGINT)
        sigaddset(&set, SIGTERM)
        return set
    }

    /// Starts the waiting thread. Until this runs, blocked signals stay pending, which is fine
    /// for commands that finish in milliseconds; commands that wait call it first.
    static func startWatching() -> TerminationSignals {
        let watcher = TerminationSignals()
        let context = Unmanaged.passRetained(watcher).toOpaque()
        var thread = pthread_t()
        let result = pthread_create(
            &thread, nil,
            { raw in
                let watcher = Unmanaged<TerminationSignals>.fromOpaque(raw!).takeRetainedValue()
                watcher.waitLoop()
                return nil
            }, context)
        if result == 0 {
            pthread_detach(thread)
        } else {
            // No watcher thread: fall back to the default action so Ctrl-C still works.
            Unmanaged<TerminationSignals>.fromOpaque(context).release()
            var set = signalSet()
            pthread_sigmask(SIG_UNBLOCK, &set, nil)
        }
        return watcher
    }

    /// The signal received so far (SIGINT or SIGTERM), or 0.
    var received: Int32 { state.withLock { $0.received } }

    /// The exit code for the signal received (130 or 143), or nil.
    var exitCode: Int32? {
        let signal = received
        return signal == 0 ? nil : 128 + signal
    }

    /// The watcher whose `run` the current task is in. Code that blocks outside Swift concurrency
    /// (the passphrase prompt's `read`) cannot be cancelled; when it sees the cancellation it ends
    /// the process itself, and reads here which signal it is for (130 or 143).
    @TaskLocal static var current: TerminationSignals?

    /// The error line and hint for an interruption with `exitCode` (130 or 143).
    static func failure(exitCode code: Int32) -> CommandFailure {
        CommandFailure(
            exitCode: code, code: "cancelled",
            message: code == 143 ? "terminated by SIGTERM" : "interrupted by SIGINT",
            hint: "nothing was saved; run the command again")
    }

    /// Runs `body` as a task that a signal cancels. When a signal arrived, whatever error the
    /// unwinding produced is replaced by the interruption itself (exit 130 or 143).
    func run<T: Sendable>(_ body: @escaping @Sendable () async throws -> T) async throws -> T {
        let task = Task { try await TerminationSignals.$current.withValue(self) { try await body() } }
        let alreadySignalled = state.withLock { s -> Bool in
            s.cancel = { task.cancel() }
            return s.received != 0
        }
        if alreadySignalled { task.cancel() }
        defer { state.withLock { $0.cancel = nil } }
        do {
            return try await task.value
        } catch {
            if let code = exitCode { throw Self.failure(exitCode: code) }
            throw error
        }
    }

    private func waitLoop() {
        var set = TerminationSignals.signalSet()
        var signal: Int32 = 0
        while sigwait(&set, &signal) != 0 {}
        let cancel = state.withLock { s -> (@Sendable () -> Void)? in
            s.received = signal
            return s.cancel
        }
        cancel?()
        // Normally the task unwinds and main exits with 128+signal before this wait ends. A
        // second signal, or a task stuck past the grace period, ends the process here.
        var timeout = timespec(tv_sec: Int(TerminationSignals.gracePeriod), tv_nsec: 0)
        while true {
            let second = sigtimedwait(&set, nil, &timeout)
            if second > 0 { _exit(128 + second) }
            if errno != EINTR { _exit(128 + signal) }
        }
    }
}
