import Glibc

/// Whole-file reads of small files (secrets, JWKS, tokens) with a size limit.
enum SmallFile {
    /// The file's bytes, or nil (with `errno` set) when it cannot be read or exceeds `limit`.
    static func read(_ path: String, limit: Int) -> [UInt8]? {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { return nil }
        defer { close(fd) }
        return readAll(fd: fd, limit: limit)
    }

    /// Everything readable from `fd` up to `limit` bytes; nil (errno EFBIG) beyond it.
    static func readAll(fd: Int32, limit: Int) -> [UInt8]? {
        var result: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 16_384)
        while true {
            let n = chunk.withUnsafeMutableBytes { Glibc.read(fd, $0.baseAddress, $0.count) }
            if n < 0 && errno == EINTR { continue }
            if n < 0 { return nil }
            if n == 0 { return result }
            result += chunk[..<n]
            if result.count > limit { errno = EFBIG; return nil }
        }
    }
}
