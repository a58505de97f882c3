import Glibc
import Synchronization

/// Lets the main thread wait for the command's task without `async` main. Async main ends in
/// libdispatch's main loop, which sleeps in `sigsuspend` with an empty mask — that would let
/// SIGINT reach the main thread and kill the process before `TerminationSignals` can cancel the
/// task. A semaphore wait keeps the main thread's signals blocked.
final class CompletionLatch: @unchecked Sendable {
    // sem_t is made for sharing between threads; the pointer itself never changes.
    private let semaphore: UnsafeMutablePointer<sem_t>
    private let code = Mutex<Int32>(1)

    /// A latch that has not been released.
    init() {
        semaphore = .allocate(capacity: 1)
        sem_init(semaphore, 0, 0)
    }

    deinit {
        sem_destroy(semaphore)
        semaphore.deallocate()
    }

    /// Records the exit code and wakes the waiter.
    func release(_ exitCode: Int32) {
        code.withLock { $0 = exitCode }
        sem_post(semaphore)
    }

    /// Blocks until `release` and returns its exit code.
    func wait() -> Int32 {
        while sem_wait(semaphore) != 0 && errno == EINTR {}
        return code.withLock { $0 }
    }
}
