import Glibc

/// An exclusive `flock(2)` on a lock file, held across processes until `release()`.
///
/// Waiting polls with `LOCK_NB` and short `Task.sleep`s instead of a blocking `flock`, so a
/// waiter never pins a thread of the Swift cooperative pool and can be cancelled. `flock` locks
/// belong to the open file description, so two holders in one process also exclude each other
/// (and a nested `withLock` on the same store would wait for itself: do not nest).
struct FileLock: Sendable {
    /// The locked descriptor; closing it releases the lock.
    private let fd: Int32

    private init(fd: Int32) { self.fd = fd }

    /// First poll interval; doubled up to `maximumPoll` while the lock stays busy.
    static let firstPollNanoseconds: UInt64 = 500_000
    /// Longest wait between two attempts.
    static let maximumPollNanoseconds: UInt64 = 8_000_000

    /// Opens (creating, 0600) `path` and takes the exclusive lock, waiting up to `timeout` seconds.
    /// Throws `TokenStoreError.lockFailed` (ETIMEDOUT on timeout) or `CancellationError`.
    static func acquire(path: String, timeout: Double) async throws -> FileLock {
        let fd = InterruptRetry.call { open(path, O_RDWR | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0o600) }
        guard fd >= 0 else {
            let code = errno
            if code == ELOOP { throw TokenStoreError.unsafePermissions(path: path, reason: "is a symbolic link") }
            throw TokenStoreError.lockFailed(path: path, errno: code)
        }
        var info = stat()
        guard fstat(fd, &info) == 0 else { close(fd); throw TokenStoreError.lockFailed(path: path, errno: errno) }
        // The lock file holds no secret, so a too-open mode (say, created by flock(1) under umask
        // 022) is tightened rather than refused: it only matters because anyone who can open the
        // file can hold the lock. Another owner or a non-regular file is still refused.
        if info.st_mode & S_IFMT == S_IFREG, info.st_uid == geteuid(), info.st_mode & 0o077 != 0 {
            _ = fchmod(fd, 0o600)
            info.st_mode = (info.st_mode & ~0o7777) | 0o600
        }
        do { try FileOwnershipPolicy.ownerOnly.check(info, path: path) } catch { close(fd); throw error }

        let clock = ContinuousClock()
        let deadline = clock.now.advanced(by: .milliseconds(Int64(timeout * 1000)))
        var pause = firstPollNanoseconds
        while true {
            if flock(fd, LOCK_EX | LOCK_NB) == 0 {
                // While there is space, so the record of a refresh that fails on a full disk fits.
                RefreshRecordFile.prepareSlot(fd: fd)
                return FileLock(fd: fd)
            }
            let code = errno
            guard code == EWOULDBLOCK || code == EINTR else {
                close(fd)
                throw TokenStoreError.lockFailed(path: path, errno: code)
            }
            if clock.now >= deadline {
                close(fd)
                throw TokenStoreError.lockFailed(path: path, errno: ETIMEDOUT)
            }
            do {
                try await Task.sleep(nanoseconds: pause)
            } catch {
                close(fd)
                throw error
            }
            pause = min(pause * 2, maximumPollNanoseconds)
        }
    }

    /// Releases the lock by closing the descriptor. Call exactly once.
    func release() {
        close(fd)
    }
}
