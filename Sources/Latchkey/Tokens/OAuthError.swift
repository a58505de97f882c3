/// What an OAuth endpoint answered when it did not give what was asked for.
/// Carries the RFC 6749 §5.2 / RFC 8628 §3.5 `error` code verbatim.
public enum OAuthError: Error, Sendable, Equatable, CustomStringConvertible {
    /// An error response with an `error` code (any HTTP status; GitHub uses 200, Auth0 403/429).
    case server(code: String, description: String?, status: Int)
    /// A status without a usable error body (e.g. 502 from a proxy, 404 with HTML).
    case unexpectedStatus(Int)
    /// A body that is neither a valid success nor a valid error response.
    case malformedResponse(String)
    /// The server kept failing: a transient status (5xx, 429) to the last attempt the transient
    /// rule allows (`TransientFailure`). `retryAfter` is the wait in seconds the server asked for
    /// (`Retry-After`) when that wait is what ended the attempts: longer than
    /// `TransientFailure.maxRetryAfter`, or past the operation's deadline.
    case unavailable(status: Int, retryAfter: Int64?)

    /// The RFC error code, when the server sent one.
    public var code: String? {
        if case .server(let code, _, _) = self { return code }
        return nil
    }

    /// One line with the code, status and description.
    public var description: String {
        switch self {
        case .server(let code, let d, let status):
            return d.map { "\(code) (HTTP \(status)): \($0)" } ?? "\(code) (HTTP \(status))"
        case .unexpectedStatus(let s): return "unexpected HTTP status \(s)"
        case .malformedResponse(let r): return "malformed response: \(r)"
        case .unavailable(let s, nil): return "HTTP \(s) to every attempt"
        case .unavailable(let s, let wait?): return "HTTP \(s) asking to wait \(wait) s (Retry-After), longer than the wait allowed"
        }
    }
}
