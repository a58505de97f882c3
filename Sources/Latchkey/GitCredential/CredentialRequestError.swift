/// Why a git credential-helper request (`git help credential`, "INPUT/OUTPUT FORMAT") was refused.
/// Any of these means the input is not what git sends, so no credential is given for it.
package enum CredentialRequestError: Error, Equatable, Sendable, CustomStringConvertible {
    /// Line `line` (1-based) has no `=` between its name and value.
    case missingSeparator(line: Int)
    /// Line `line` has an empty or malformed attribute name.
    case badName(line: Int)
    /// The input holds a NUL byte (git forbids it in every attribute).
    case nulByte(line: Int)
    /// Line `line` holds a control character or is not UTF-8.
    case badCharacters(line: Int)
    /// Line `line` is longer than `limit` bytes.
    case lineTooLong(line: Int, limit: Int)
    /// The request has more than `limit` lines or bytes.
    case tooLarge(limit: Int)
    /// The `url` attribute on line `line` is not `scheme://[user@]host[/path]`.
    case badURL(line: Int)
    /// A required attribute (`protocol`, `host`) is missing.
    case missing(String)

    package var description: String {
        switch self {
        case .missingSeparator(let line): return "credential input line \(line) is not name=value"
        case .badName(let line): return "credential input line \(line) has no valid attribute name"
        case .nulByte(let line): return "credential input line \(line) contains a NUL byte"
        case .badCharacters(let line): return "credential input line \(line) contains a control character or invalid UTF-8"
        case .lineTooLong(let line, let limit): return "credential input line \(line) is longer than \(limit) bytes"
        case .tooLarge(let limit): return "credential input is larger than \(limit)"
        case .badURL(let line): return "credential input line \(line) has a url that is not scheme://host[/path]"
        case .missing(let name): return "credential input has no \(name)= line"
        }
    }
}
