import Glibc

/// Readable text for a C error number.
enum ErrnoText {
    /// `strerror` text with the number, and plain words for the common cases.
    static func describe(_ code: Int32) -> String {
        switch code {
        case ENOSPC: return "disk full"
        case EACCES, EPERM: return "permission denied"
        case ENOENT: return "no such file or directory"
        default:
            guard let text = strerror(code) else { return "errno \(code)" }
            return String(cString: text) + " (errno \(code))"
        }
    }
}
