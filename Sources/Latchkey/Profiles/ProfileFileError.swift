/// Why a profile settings file could not be used (a local storage failure).
package enum ProfileFileError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The file is not valid JSON or lacks what a profile needs.
    case invalid(path: String, reason: String)
    /// Reading or writing failed the store's file rules (permissions, owner, size, I/O).
    case storage(TokenStoreError)

    /// One line.
    package var description: String {
        switch self {
        case let .invalid(path, reason): return "profile file \(path) is invalid: \(reason)"
        case let .storage(error): return "profile settings: \(error)"
        }
    }
}
