import Glibc
import LatchkeyHTTP

/// `fetch --output FILE`: the response lands whole or not at all. A temporary file in the same
/// folder (O_EXCL, 0600: a response may hold personal data) is written, fsynced and renamed over
/// FILE, so a reader never sees half a body and an interrupted run leaves the old file.
enum OutputFile {
    static func write(_ bytes: [UInt8], to path: String) throws {
        let slash = path.lastIndex(of: "/")
        let directory = slash.map { $0 == path.startIndex ? "/" : String(path[..<$0]) } ?? "."
        let name = slash.map { String(path[path.index(after: $0)...]) } ?? path
        let temporary = directory + "/." + name + ".latchkey-\(getpid())"
        let fd = open(temporary, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0o600)
        guard fd >= 0 else { throw failure(path, "create a temporary file next to", errno) }
        var done = false
        defer { if !done { unlink(temporary) } }
        var offset = 0
        while offset < bytes.count {
            let n = bytes[offset...].withUnsafeBytes { Glibc.write(fd, $0.baseAddress, $0.count) }
            if n < 0 && errno == EINTR { continue }
            if n <= 0 { let e = n < 0 ? errno : EIO; close(fd); throw failure(path, "write", e) }
            offset += n
        }
        guard fsync(fd) == 0 else { let e = errno; close(fd); throw failure(path, "write", e) }
        close(fd)
        guard rename(temporary, path) == 0 else { throw failure(path, "replace", errno) }
        done = true
    }

    static func failure(_ path: String, _ operation: String, _ code: Int32) -> CommandFailure {
        CommandFailure(exitCode: 9, code: "storage_error", message: "cannot \(operation) \(path): \(ErrnoText.describe(code))",
                       hint: "check the folder of --output and its permissions")
    }
}
