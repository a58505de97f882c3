import Glibc

/// Reads a small secret file after checking, on the open descriptor, that it is a regular file
/// with safe ownership and mode and not larger than a limit.
enum SecureFileReader {
    /// The contents, or nil when the file does not exist. With `followSymlinks == false` a
    /// symbolic link is refused (`O_NOFOLLOW`), so nobody can point a managed file elsewhere.
    static func read(
        path: String, limit: Int, policy: FileOwnershipPolicy, followSymlinks: Bool,
        tooLarge: (Int) -> TokenStoreError
    ) throws(TokenStoreError) -> [UInt8]? {
        // O_NONBLOCK: opening a FIFO planted at the path must not hang; regular files ignore it.
        var flags = O_RDONLY | O_CLOEXEC | O_NONBLOCK
        if !followSymlinks { flags |= O_NOFOLLOW }
        let fd = InterruptRetry.call { open(path, flags) }
        if fd < 0 {
            let code = errno
            if code == ENOENT { return nil }
            if code == ELOOP && !followSymlinks {
                throw .unsafePermissions(path: path, reason: "is a symbolic link")
            }
            throw .io(path: path, operation: "open", errno: code)
        }
        defer { close(fd) }
        var info = stat()
        guard fstat(fd, &info) == 0 else { throw .io(path: path, operation: "stat", errno: errno) }
        try policy.check(info, path: path)
        guard Int(info.st_size) <= limit else { throw tooLarge(Int(info.st_size)) }
        return try readAll(fd: fd, path: path, limit: limit, sizeHint: Int(info.st_size), tooLarge: tooLarge)
    }

    /// Reads to end of file; the limit is checked again because the size can change after `fstat`.
    /// The capacity is reserved from `sizeHint` and the chunk buffer is cleared afterwards, so a
    /// key file's bytes are not left behind in freed memory.
    static func readAll(
        fd: Int32, path: String, limit: Int, sizeHint: Int = 0,
        tooLarge: (Int) -> TokenStoreError
    ) throws(TokenStoreError) -> [UInt8] {
        var result: [UInt8] = []
        result.reserveCapacity(min(max(sizeHint, 0), limit) + 1)
        var chunk = [UInt8](repeating: 0, count: 4096)
        defer { chunk.withUnsafeMutableBytes { TokenFile.zeroize($0) } }
        while true {
            let count = chunk.withUnsafeMutableBytes { buffer in
                InterruptRetry.call { Glibc.read(fd, buffer.baseAddress, buffer.count) }
            }
            if count < 0 { throw .io(path: path, operation: "read", errno: errno) }
            if count == 0 { break }
            result += chunk[0..<count]
            if result.count > limit { throw tooLarge(result.count) }
        }
        return result
    }
}
