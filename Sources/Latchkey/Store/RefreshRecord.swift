import Glibc
import LatchkeyHTTP

/// How `EncryptedFileTokenStore` reserves disk space before a refresh: `(fd, bytes) -> 0 or errno`.
/// Injected so tests can make the reservation fail (ENOSPC) without filling a disk.
package struct SpaceReserver: Sendable {
    let reserve: @Sendable (_ fd: Int32, _ bytes: Int) -> Int32

    /// A reserver calling `reserve(fd, bytes)`, which returns 0 or an errno.
    package init(_ reserve: @escaping @Sendable (_ fd: Int32, _ bytes: Int) -> Int32) { self.reserve = reserve }

    /// `posix_fallocate`, or zeros written where the file system cannot fallocate.
    package static let system = SpaceReserver { AtomicFileWriter.reserveSpace(fd: $0, size: $1) }

    /// Always fails with `errno` (for tests).
    package static func failing(errno code: Int32) -> SpaceReserver { SpaceReserver { _, _ in code } }
}

/// The last refresh attempt, kept in the first bytes of the profile's lock file: one line
/// `refresh <epoch seconds> ok` or `refresh <epoch seconds> failed <reason>`, padded with NULs to
/// `slotSize`. Why there: the record matters most when the disk is full, when no new file and no
/// token file can be written. The lock file's slot is allocated while there is space (each time
/// the lock is taken), and later rewritten in place, which needs no new block on tmpfs or ext4.
/// It holds no secret (the reason is a one-line error message).
enum RefreshRecordFile {
    static let slotSize = 512

    /// Sizes the open lock file's record slot on disk, best effort, when it is shorter.
    static func prepareSlot(fd: Int32) {
        var info = stat()
        guard fstat(fd, &info) == 0, info.st_size < slotSize else { return }
        _ = AtomicFileWriter.reserveSpace(fd: fd, size: slotSize)
    }

    /// Writes `attempt` into the slot of the lock file at `path`, best effort.
    static func write(_ attempt: RefreshAttempt, lockPath: String) {
        var line = Array("refresh \(attempt.at.epochSeconds) ".utf8)
        if let failure = attempt.failure {
            line += Array("failed ".utf8) + printable(failure, limit: slotSize - line.count - 16)
        } else {
            line += Array("ok".utf8)
        }
        line.append(0x0A)
        line += [UInt8](repeating: 0, count: max(0, slotSize - line.count))
        let fd = InterruptRetry.call { open(lockPath, O_WRONLY | O_NOFOLLOW | O_CLOEXEC) }
        guard fd >= 0 else { return }
        defer { close(fd) }
        _ = line.withUnsafeBytes { buffer in InterruptRetry.call { pwrite(fd, buffer.baseAddress, buffer.count, 0) } }
    }

    /// The record in the lock file at `path`; nil when there is none (or it is not ours to read).
    static func read(lockPath: String) -> RefreshAttempt? {
        let fd = InterruptRetry.call { open(lockPath, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC) }
        guard fd >= 0 else { return nil }
        defer { close(fd) }
        var info = stat()
        guard fstat(fd, &info) == 0, info.st_mode & S_IFMT == S_IFREG, info.st_uid == geteuid() else { return nil }
        var buffer = [UInt8](repeating: 0, count: slotSize)
        let count = buffer.withUnsafeMutableBytes { raw in InterruptRetry.call { pread(fd, raw.baseAddress, raw.count, 0) } }
        guard count > 0 else { return nil }
        return parse(Array(buffer[0..<count]))
    }

    /// Parses a slot's bytes (the line ends at the first newline or NUL).
    static func parse(_ bytes: [UInt8]) -> RefreshAttempt? {
        let end = bytes.firstIndex { $0 == 0x0A || $0 == 0 } ?? bytes.count
        let line = String(decoding: bytes[0..<end], as: UTF8.self)
        let parts = line.split(separator: " ", maxSplits: 3, omittingEmptySubsequences: false)
        guard parts.count >= 3, parts[0] == "refresh", let seconds = Int64(parts[1]) else { return nil }
        let at = Timestamp(timeIntervalSince1970: Double(seconds))
        switch parts[2] {
        case "ok" where parts.count == 3: return RefreshAttempt(at: at)
        case "failed" where parts.count == 4: return RefreshAttempt(at: at, failure: String(parts[3]))
        default: return nil
        }
    }

    /// `text` as one line of at most `limit` bytes: control characters become `?`, and a cut
    /// never splits a UTF-8 sequence.
    static func printable(_ text: String, limit: Int) -> [UInt8] {
        var out: [UInt8] = []
        for scalar in text.unicodeScalars {
            let encoded: [UInt8] =
                CharacterClass.isControl(scalar)
                ? [UInt8(ascii: "?")] : Array(String(scalar).utf8)
            if out.count + encoded.count > limit { break }
            out += encoded
        }
        return out
    }
}
