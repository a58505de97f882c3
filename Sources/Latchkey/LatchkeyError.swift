import LatchkeyHTTP

/// Every failure the library reports, grouped by what the caller should do about it. Cases carry
/// data (what failed, the OAuth code, the endpoint, what was expected and what arrived); the program
/// using the library decides exit codes, hints and wording (the CLI: `FailureReport`).
public enum LatchkeyError: Error, Sendable, CustomStringConvertible {
    /// No stored session for the profile.
    case notSignedIn
    /// The refresh token was rejected or is missing; tokens were cleared.
    case reauthenticationRequired(reason: String)
    /// The user or the server refused (`access_denied`, `authorization_declined`).
    case denied(code: String, description: String?)
    /// The device code or the wait expired: the server said so (`oauthCode` is its code:
    /// `expired_token`, or `invalid_grant` for a code no longer usable), or the `expires_in` deadline
    /// passed (`oauthCode` nil).
    case expired(reason: String, oauthCode: String? = nil)
    /// The caller's own `timeout` passed.
    case timedOut(seconds: Double)
    /// DNS, connect, TLS, I/O or proxy failure.
    case network(HTTPError)
    /// The server broke HTTP or the OAuth protocol: malformed response, unexpected status.
    case protocolViolation(String)
    /// An endpoint refused the request (`invalid_client`, `unauthorized_client`, …); `endpoint` says which.
    case oauth(OAuthError, endpoint: EndpointRole)
    /// The discovered `issuer` (or an authorization response `iss`) differs from the configured one.
    case issuerMismatch(expected: String, got: String)
    /// An ID token (or other JWT) failed verification.
    case verification(IDTokenError)
    /// The token store or a file kept beside it failed: corrupt, tampered, wrong key, permissions,
    /// disk.
    case storage(TokenStoreError)
    /// The client's own signing key (`private_key_jwt`, a sealed registration key) could not be
    /// read or used; a local storage failure like `storage`.
    case clientKey(ClientKeyError)
    /// The configuration cannot work, e.g. no device endpoint known.
    case configuration(ConfigurationProblem)
    /// A DPoP exchange broke RFC 9449 (a Bearer answer under `always`, a foreign `cnf.jkt`, a nonce
    /// asked for twice).
    case tokenBinding(TokenBindingProblem)
    /// Mutual-TLS client authentication (RFC 8705) failed: a local certificate or key that cannot
    /// be used (a storage problem), or the provider refusing the certificate presented.
    case clientCertificate(ClientCertificateProblem)
    /// The task was cancelled (SIGINT).
    case cancelled
    /// The provider refused the client's own authentication (e.g. a `private_key_jwt` assertion).
    case clientAuthenticationRefused(ClientAuthenticationRefusal)
    /// A credential file (an assertion, a token to exchange) could not be used: unreadable or
    /// unsafe (storage), not one token or not a JWT (configuration), or expired (sign in again,
    /// with a new one from its issuer). Nothing was sent.
    case credentialFile(CredentialFileProblem)
    /// A protected resource's metadata (RFC 9728) was refused: another origin, a `resource` that
    /// is not the URL's, a malformed or oversized document.
    case resourceMetadata(ResourceMetadataProblem)

    /// What the caller should do about an error; a program maps these to its own outcomes (the
    /// CLI's exit codes).
    public enum Category: Sendable, Equatable, CaseIterable {
        /// Sign in (again): not signed in, or the refresh token is dead.
        case signInRequired
        /// The person or the server refused.
        case denied
        /// The code, the wait or the caller's timeout ran out.
        case expired
        /// The network, TLS or a proxy failed; trying later may work.
        case network
        /// The server broke the protocol or refused the client.
        case protocolViolation
        /// A token failed verification.
        case verification
        /// Local storage failed.
        case storage
        /// The configuration cannot work; something must be added or changed.
        case configuration
        /// The work was cancelled.
        case cancelled
    }

    /// The error's category.
    public var category: Category {
        switch self {
        case .notSignedIn, .reauthenticationRequired: return .signInRequired
        case .denied: return .denied
        case .expired, .timedOut: return .expired
        case .network(.unreadableCABundle): return .configuration
        case .network(.untrustedCABundle): return .storage
        case .network(let e): return e == .cancelled ? .cancelled : (Self.isProtocol(e) ? .protocolViolation : .network)
        case .protocolViolation, .oauth, .issuerMismatch, .tokenBinding, .clientAuthenticationRefused, .resourceMetadata:
            return .protocolViolation
        case .clientCertificate(let p): return p.isLocal ? .storage : .protocolViolation
        case .verification: return .verification
        case .storage, .clientKey: return .storage
        case .configuration: return .configuration
        case .cancelled: return .cancelled
        case .credentialFile(let problem): return problem.category
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
        case .network(.unreadableCABundle): return "configuration_error"
        case .network(.untrustedCABundle): return "storage_error"
        case .network(let e): return e == .cancelled ? "cancelled" : (Self.isProtocol(e) ? "protocol_violation" : "network_error")
        case .protocolViolation, .tokenBinding: return "protocol_violation"
        case .clientCertificate(let p): return p.isLocal ? "client_certificate_unusable" : "client_certificate_refused"
        case .oauth(.unavailable, _): return "temporarily_unavailable"
        case .oauth(let e, _): return e.code ?? "protocol_violation"
        case .clientAuthenticationRefused(let r): return r.error?.code ?? "invalid_client"
        case .issuerMismatch: return "issuer_mismatch"
        case .resourceMetadata: return "resource_metadata_refused"
        case .verification(.clockOffsetTooLarge): return "clock_skew"
        case .verification: return "verification_failed"
        case .storage, .clientKey: return "storage_error"
        case .configuration: return "configuration_error"
        case .cancelled: return "cancelled"
        case .credentialFile(let problem): return problem.code
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
        case .oauth(let e, _): return "the server refused the request: \(e.description)"
        case .issuerMismatch(let expected, let got): return "issuer mismatch: expected \(expected) got \(got)"
        case .verification(.clockOffsetTooLarge(let seconds)): return IDTokenError.clockOffsetTooLarge(seconds: seconds).description
        case .verification(let e): return "token verification failed: \(e.description)"
        case .storage(let e): return "token storage failed: \(e)"
        case .clientKey(let e): return "token storage failed: \(e)"
        case .configuration(let problem): return problem.description
        case .tokenBinding(let problem): return "protocol error: \(problem.description)"
        case .clientCertificate(let problem): return problem.description
        case .cancelled: return "cancelled"
        case .clientAuthenticationRefused(let r): return "the server refused the client: \(r.description)"
        case .credentialFile(let problem): return problem.description
        case .resourceMetadata(let problem): return "protocol error: \(problem.description)"
        }
    }

    /// Same as `message`.
    public var description: String { message }

    /// True when the HTTP layer saw the server break HTTP (not the network failing).
    public static func isProtocol(_ e: HTTPError) -> Bool {
        if case .protocolViolation = e { return true }
        return false
    }

    static func seconds(_ s: Double) -> String {
        s.rounded() == s ? String(Int64(s)) : String(s)
    }
}
