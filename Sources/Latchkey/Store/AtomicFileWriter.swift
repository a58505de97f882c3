import Glibc
import LatchkeyCrypto

/// Replaces a file so that, whatever happens (crash, SIGKILL, power loss, full disk), the path
/// holds either the old contents or the new ones: write a temporary file in the same folder
/// (O_CREAT|O_EXCL, 0600), fsync it, rename it over the target, fsync the folder.
enum AtomicFileWriter {
    /// Temporary files older than this are leftovers of killed writers and are removed.
    static let staleTemporaryAge: Int = 60

    /// Writes `bytes` to `path` (in `directory`) atomically with mode 0600. On failure the
    /// temporary file is removed and the old file is untouched.
    static func write(_ bytes: [UInt8], to path: String, directory: String, fileName: String,
                      random: any RandomSource) throws(TokenStoreError) {
        let prefix = temporaryPrefix(for: fileName)
        let temporary = directory + "/" + prefix + hex(random.bytes(8))
        let fd = InterruptRetry.call { open(temporary, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0o600) }
        guard fd >= 0 else { throw .io(path: path, operation: "create a temporary file for", errno: errno) }
        var published = false
        defer { if !published { unlink(temporary) } }
        do {
            defer { close(fd) }
            // The umask can only clear bits, but be explicit: secrets are 0600.
            guard fchmod(fd, 0o600) == 0 else { throw TokenStoreError.io(path: path, operation: "chmod", errno: errno) }
            try writeAll(bytes, fd: fd, path: path)
            guard InterruptRetry.call({ fsync(fd) }) == 0 else {
                throw TokenStoreError.io(path: path, operation: "write", errno: errno)
            }
        }
        guard rename(temporary, path) == 0 else { throw .io(path: path, operation: "replace", errno: errno) }
        published = true
        try syncDirectory(directory)
        removeStaleTemporaries(in: directory, prefix: prefix)
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
    static func syncDirectory(_ directory: String) throws(TokenStoreError) {
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
