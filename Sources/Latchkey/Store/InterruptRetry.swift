import Glibc

/// Restarts a system call that a signal interrupted (EINTR), as POSIX expects callers to.
enum InterruptRetry {
    /// Calls `call` again while it returns a negative value with `errno == EINTR`.
    static func call<T: BinaryInteger>(_ call: () -> T) -> T {
        while true {
            let result = call()
            if result < 0 && errno == EINTR { continue }
            return result
        }
    }
}
