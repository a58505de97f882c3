import Glibc
import LatchkeyCrypto

/// Replaces a file so that, whatever happens (crash, SIGKILL, power loss, full disk), the path
/// holds either the old contents or the new ones: write a temporary file in the same folder
/// (O_CREAT|O_EXCL, 0600), fsync it, rename it over the target, fsync the folder.
package enum AtomicFileWriter {
    /// Temporary files older than this are leftovers of killed writers and are removed.
    static let staleTemporaryAge: Int = 60

    /// Writes `bytes` to `path` (in `directory`) atomically with mode 0600. On failure the
    /// temporary file is removed and the old file is untouched.
    package static func write(
        _ bytes: [UInt8], to path: String, directory: String, fileName: String,
        random: any RandomSource
    ) throws(TokenStoreError) {
        let staged = try StagedFile.create(path: path, directory: directory, fileName: fileName, random: random)
        try staged.publish(bytes)
    }

    /// Writes every byte, continuing after short writes.
    static func writeAll(_ bytes: [UInt8], fd: Int32, path: String) throws(TokenStoreError) {
        var offset = 0
        while offset < bytes.count {
            let written = bytes.withUnsafeBytes { buffer in
                InterruptRetry.call { Glibc.write(fd, buffer.baseAddress! + offset, buffer.count - offset) }
            }
            if written < 0 { throw .io(path: path, operation: "write", errno: errno) }
            if written == 0 { throw .io(path: path, operation: "write", errno: EIO) }
            offset += written
        }
    }

    /// Makes a rename or unlink in `directory` durable. File systems that cannot fsync a
    /// directory (EINVAL) have nothing to flush.
    package static func syncDirectory(_ directory: String) throws(TokenStoreError) {
        let fd = InterruptRetry.call { open(directory, O_RDONLY | O_DIRECTORY | O_CLOEXEC) }
        guard fd >= 0 else { throw .io(path: directory, operation: "open", errno: errno) }
        defer { close(fd) }
        if InterruptRetry.call({ fsync(fd) }) != 0 && errno != EINVAL && errno != ENOTSUP {
            throw .io(path: directory, operation: "sync", errno: errno)
        }
    }

    /// The name prefix of temporary files for `fileName`: hidden, so listings ignore them.
    static func temporaryPrefix(for fileName: String) -> String { "." + fileName + ".tmp-" }

    /// Best effort: deletes this file's temporaries older than `staleTemporaryAge` seconds. A live
    /// writer never takes that long; if one did, its rename fails and it reports an error, so
    /// nothing is lost either way.
    static func removeStaleTemporaries(in directory: String, prefix: String) {
        guard let dir = opendir(directory) else { return }
        defer { closedir(dir) }
        let dirFD = dirfd(dir)
        var now = timespec()
        clock_gettime(CLOCK_REALTIME, &now)
        while let entry = readdir(dir) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { raw in
                String(cString: raw.bindMemory(to: CChar.self).baseAddress!)
            }
            guard name.hasPrefix(prefix) else { continue }
            var info = stat()
            guard fstatat(dirFD, name, &info, AT_SYMLINK_NOFOLLOW) == 0 else { continue }
            if now.tv_sec - info.st_mtim.tv_sec > staleTemporaryAge {
                unlinkat(dirFD, name, 0)
            }
        }
    }

    /// Reserves `[0, size)` of `fd` on disk so that later writes within it cannot fail for lack of
    /// space: `posix_fallocate`, or, where the file system has no fallocate (EOPNOTSUPP; musl does
    /// not emulate it), zeros written over the range. Returns 0 or the errno.
    static func reserveSpace(
        fd: Int32, size: Int,
        allocate: (Int32, off_t, off_t) -> Int32 = { posix_fallocate($0, $1, $2) }
    ) -> Int32 {
        let code = allocate(fd, 0, off_t(size))
        guard code == EOPNOTSUPP || code == EINVAL || code == ENOSYS else { return code }
        let zeros = [UInt8](repeating: 0, count: 4096)
        var offset = 0
        while offset < size {
            let count = min(zeros.count, size - offset)
            let written = zeros.withUnsafeBytes { buffer in
                InterruptRetry.call { pwrite(fd, buffer.baseAddress, count, off_t(offset)) }
            }
            if written < 0 { return errno }
            if written == 0 { return EIO }
            offset += written
        }
        return InterruptRetry.call({ fsync(fd) }) == 0 ? 0 : errno
    }

    /// Lower-case hexadecimal.
    static func hex(_ bytes: [UInt8]) -> String {
        let digits = Array("0123456789abcdef".utf8)
        var out: [UInt8] = []
        out.reserveCapacity(bytes.count * 2)
        for byte in bytes {
            out.append(digits[Int(byte >> 4)])
            out.append(digits[Int(byte & 0x0f)])
        }
        return String(decoding: out, as: UTF8.self)
    }
}

/// The temporary file of one atomic replacement, between its creation and its rename over the
/// target. Creating it first, with space reserved, lets a caller make sure the write can succeed
/// before it does anything that cannot be undone (a refresh that rotates the refresh token).
final class StagedFile: @unchecked Sendable {
    // @unchecked: its one owner uses it under the store's lock, never from two tasks at once.
    let path: String
    let directory: String
    let temporary: String
    let prefix: String
    private var fd: Int32
    /// Renamed into place, or removed: nothing left to clean up.
    private var finished = false

    private init(path: String, directory: String, temporary: String, prefix: String, fd: Int32) {
        self.path = path
        self.directory = directory
        self.temporary = temporary
        self.prefix = prefix
        self.fd = fd
    }

    /// Creates `directory/.<fileName>.tmp-<random>` (O_EXCL, 0600) and, when `reserving` > 0, sizes
    /// it on disk with `reserve` (by default `AtomicFileWriter.reserveSpace`). On failure nothing
    /// is left behind and the error names `path`.
    static func create(
        path: String, directory: String, fileName: String, random: any RandomSource, reserving: Int = 0,
        reserve: (Int32, Int) -> Int32 = { AtomicFileWriter.reserveSpace(fd: $0, size: $1) }
    )
        throws(TokenStoreError) -> StagedFile
    {
        let prefix = AtomicFileWriter.temporaryPrefix(for: fileName)
        let temporary = directory + "/" + prefix + AtomicFileWriter.hex(random.bytes(8))
        let fd = InterruptRetry.call { open(temporary, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0o600) }
        guard fd >= 0 else {
            let code = errno
            if reserving > 0 { throw .reservationFailed(path: path, errno: code) }
            throw .io(path: path, operation: "create a temporary file for", errno: code)
        }
        let staged = StagedFile(path: path, directory: directory, temporary: temporary, prefix: prefix, fd: fd)
        // The umask can only clear bits, but be explicit: secrets are 0600.
        guard fchmod(fd, 0o600) == 0 else {
            let code = errno
            staged.discard()
            throw .io(path: path, operation: "chmod", errno: code)
        }
        if reserving > 0 {
            let code = reserve(fd, reserving)
            if code != 0 {
                staged.discard()
                throw .reservationFailed(path: path, errno: code)
            }
        }
        return staged
    }

    /// Writes `bytes` from the start (within the reserved space when it is large enough), cuts the
    /// file to their length, fsyncs, renames it over `path` and fsyncs the folder. On failure the
    /// temporary file is removed and the old file is untouched.
    func publish(_ bytes: [UInt8]) throws(TokenStoreError) {
        precondition(fd >= 0 && !finished, "a staged file is published once")
        do throws(TokenStoreError) {
            guard lseek(fd, 0, SEEK_SET) == 0 else { throw TokenStoreError.io(path: path, operation: "write", errno: errno) }
            try AtomicFileWriter.writeAll(bytes, fd: fd, path: path)
            // Shrinking frees blocks, so it cannot fail for lack of space.
            guard ftruncate(fd, off_t(bytes.count)) == 0 else { throw TokenStoreError.io(path: path, operation: "write", errno: errno) }
            guard InterruptRetry.call({ fsync(fd) }) == 0 else { throw TokenStoreError.io(path: path, operation: "write", errno: errno) }
        } catch {
            discard()
            throw error
        }
        close(fd)
        fd = -1
        guard rename(temporary, path) == 0 else {
            let code = errno
            discard()
            throw .io(path: path, operation: "replace", errno: code)
        }
        finished = true
        try AtomicFileWriter.syncDirectory(directory)
        AtomicFileWriter.removeStaleTemporaries(in: directory, prefix: prefix)
    }

    /// Closes and removes the temporary file, giving back its space; nothing once published.
    func discard() {
        if fd >= 0 {
            close(fd)
            fd = -1
        }
        if !finished {
            unlink(temporary)
            finished = true
        }
    }

    deinit { discard() }
}
