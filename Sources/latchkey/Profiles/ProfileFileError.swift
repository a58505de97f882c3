/// Why a profile settings file could not be used. Local storage failures: exit code 9.
enum ProfileFileError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The file is not valid JSON or lacks what a profile needs.
    case invalid(path: String, reason: String)
    /// A system call failed.
    case io(path: String, operation: String, errno: Int32)
    /// The file or its folder is accessible to others, or owned by someone else.
    case unsafe(path: String, reason: String)

    var description: String {
        switch self {
        case let .invalid(path, reason): return "profile file \(path) is invalid: \(reason)"
        case let .io(path, operation, code): return "cannot \(operation) \(path): \(ErrnoText.describe(code))"
        case let .unsafe(path, reason): return "refusing profile file \(path): \(reason)"
        }
    }
}
