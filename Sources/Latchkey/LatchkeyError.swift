import LatchkeyHTTP

/// Every failure the library reports, grouped by what the caller should do about it.
/// Each case maps to one CLI exit code (cli.md), via `exitCode`.
public enum LatchkeyError: Error, Sendable, CustomStringConvertible {
    /// No stored session for the profile (exit 3).
    case notSignedIn
    /// The refresh token was rejected or is missing; tokens were cleared (exit 3).
    case reauthenticationRequired(reason: String)
    /// The user or the server refused (`access_denied`, `authorization_declined`) (exit 4).
    case denied(code: String, description: String?)
    /// The device code or the wait expired (exit 5): the server said so (`oauthCode` is its code:
    /// `expired_token`, or `invalid_grant` for a code no longer usable), or the `expires_in` deadline
    /// passed (`oauthCode` nil).
    case expired(reason: String, oauthCode: String? = nil)
    /// The caller's own `timeout` passed (exit 5).
    case timedOut(seconds: Double)
    /// DNS, connect, TLS, I/O or proxy failure (exit 6).
    case network(HTTPError)
    /// The server broke HTTP or the OAuth protocol: malformed response, unexpected status (exit 7).
    case protocolViolation(String)
    /// The server refused the client: `invalid_client`, `unauthorized_client`, … (exit 7).
    case oauth(OAuthError)
    /// The discovered `issuer` (or an authorization response `iss`) differs from the configured one (exit 7).
    case issuerMismatch(expected: String, got: String)
    /// An ID token (or other JWT) failed verification (exit 8).
    case verification(IDTokenError)
    /// The token store failed: corrupt, tampered, wrong key, permissions, disk (exit 9).
    case storage(any Error)
    /// The configuration cannot work, e.g. no device endpoint known (exit 2: the user must add an option).
    case configuration(String)
    /// The task was cancelled (SIGINT) (exit 130).
    case cancelled

    /// The CLI exit code for this error (cli.md, "Exit codes").
    public var exitCode: Int32 {
        switch self {
        case .notSignedIn, .reauthenticationRequired: return 3
        case .denied: return 4
        case .expired, .timedOut: return 5
        case .network(let e): return e == .cancelled ? 130 : (isProtocol(e) ? 7 : 6)
        case .protocolViolation, .oauth, .issuerMismatch: return 7
        case .verification: return 8
        case .storage: return 9
        case .configuration: return 2
        case .cancelled: return 130
        }
    }

    /// A stable short name for JSON output (`"error"` in the CLI's error event).
    public var code: String {
        switch self {
        case .notSignedIn: return "not_signed_in"
        case .reauthenticationRequired: return "reauthentication_required"
        case .denied(let code, _): return code
        case .expired(_, let oauthCode): return oauthCode ?? "expired_token"
        case .timedOut: return "timed_out"
        case .network(let e): return e == .cancelled ? "cancelled" : (isProtocol(e) ? "protocol_violation" : "network_error")
        case .protocolViolation: return "protocol_violation"
        case .oauth(let e): return e.code ?? "protocol_violation"
        case .issuerMismatch: return "issuer_mismatch"
        case .verification: return "verification_failed"
        case .storage: return "storage_error"
        case .configuration: return "configuration_error"
        case .cancelled: return "cancelled"
        }
    }

    /// One line saying what went wrong, with what was expected and what was got where that helps.
    public var message: String {
        switch self {
        case .notSignedIn: return "not signed in"
        case .reauthenticationRequired(let r): return "sign-in needed again: \(r)"
        case .denied(let code, let d): return "authorization denied (\(code))" + (d.map { ": \($0)" } ?? "")
        case .expired(let r, _): return "expired: \(r)"
        case .timedOut(let s): return "gave up waiting after \(LatchkeyError.seconds(s)) s"
        case .network(let e): return e.description
        case .protocolViolation(let r): return "protocol error: \(r)"
        case .oauth(let e): return "the server refused the request: \(e.description)"
        case .issuerMismatch(let expected, let got): return "issuer mismatch: expected \(expected) got \(got)"
        case .verification(let e): return "token verification failed: \(e.description)"
        case .storage(let e): return "token storage failed: \(e)"
        case .configuration(let r): return r
        case .cancelled: return "cancelled"
        }
    }

    /// A short suggestion for the user, or nil.
    public var hint: String? {
        switch self {
        case .notSignedIn, .reauthenticationRequired, .expired, .timedOut, .denied:
            return "run `latchkey login`"
        case .network: return "check the network, proxy settings and --ca-file"
        case .oauth(let e) where e.code == "invalid_client" || e.code == "unauthorized_client":
            return "check --client-id, --auth-method and the client secret"
        case .oauth, .protocolViolation: return "run with --verbose to see the exchange"
        case .issuerMismatch: return "pass the issuer exactly as the provider spells it"
        case .verification: return "check the issuer, client id, allowed algorithms and the system clock"
        case .storage: return "check the state directory, its permissions and the key source"
        case .configuration, .cancelled: return nil
        }
    }

    /// Same as `message`.
    public var description: String { message }

    private func isProtocol(_ e: HTTPError) -> Bool {
        if case .protocolViolation = e { return true }
        return false
    }

    static func seconds(_ s: Double) -> String {
        s.rounded() == s ? String(Int64(s)) : String(s)
    }
}
