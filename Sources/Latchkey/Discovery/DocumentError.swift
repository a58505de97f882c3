/// Why a JSON document Latchkey reads (token-file payload, profile file, metadata) was refused:
/// which member, and what was wrong with it.
public enum DocumentError: Error, Sendable, Equatable, CustomStringConvertible {
    /// A required member is missing or `null`.
    case missing(member: String)
    /// A member has the wrong JSON type.
    case wrongType(member: String, expected: String)
    /// A member has the right type but a value that is not allowed.
    case invalid(member: String, reason: String)

    public var description: String {
        switch self {
        case .missing(let m): return "\"\(m)\" is required"
        case .wrongType(let m, let expected): return "\"\(m)\" must be \(expected)"
        case .invalid(let m, let reason): return "\"\(m)\": \(reason)"
        }
    }
}
