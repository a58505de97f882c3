import Glibc

/// Readable text for a C error number: the one table, for sockets, files and the CLI alike.
package enum ErrnoText {
    /// Plain words for the cases people meet (`disk full`), else `strerror` text with the number.
    package static func describe(_ code: Int32) -> String {
        switch code {
        case ENOSPC: return "disk full"
        case EDQUOT: return "disk quota exceeded"
        case EROFS: return "read-only file system"
        case EACCES, EPERM: return "permission denied"
        case ENOENT: return "no such file or directory"
        default:
            guard let text = strerror(code) else { return "errno \(code)" }
            return String(cString: text) + " (errno \(code))"
        }
    }
}
