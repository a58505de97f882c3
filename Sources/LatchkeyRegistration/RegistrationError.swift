import Latchkey
import LatchkeyHTTP

/// What went wrong registering or managing a client (RFC 7591 / RFC 7592). Each case carries
/// what the person needs to fix it; none carries a token, a secret or key material.
public enum RegistrationError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The provider's metadata lists no `registration_endpoint`.
    case noRegistrationEndpoint(issuer: String)
    /// 401 or 403 on create: the provisioning (initial access) token was refused.
    case provisioningTokenRefused(status: Int)
    /// RFC 7591 §3.2.2: a 400 with one of its error codes (sanitised text).
    case refused(code: String, description: String?)
    /// The registration access token was refused (RFC 7592 §2: 401, or 403).
    case managementRefused(status: Int)
    /// A status the operation does not answer with.
    case unexpectedStatus(operation: RegistrationOperation, status: Int)
    /// The answer is not the JSON object the RFC describes (the reason names the member).
    case malformedAnswer(operation: RegistrationOperation, reason: String)
    /// The answer has no `client_id`.
    case missingClientID
    /// `registration_client_uri` is not on the issuer's origin: the registration token would go
    /// to another server.
    case foreignManagementURI(uri: String, issuer: String)
    /// The provider echoed a `jwks` other than the one sent: it would check assertions against
    /// keys this device does not hold.
    case keySetChanged(sentThumbprints: [String], echoedThumbprints: [String])
    /// The registration has no `registration_access_token` (management is off at the provider).
    case managementUnavailable
    /// A key could not be generated or encoded.
    case keyGeneration(String)
    /// The profile has no registration made by `register`.
    case notRegistered(profile: String)
    /// The endpoint URL is not one an HTTP request can go to.
    case unusableURL(String)

    /// Stable short name, for JSON error events.
    public var code: String {
        switch self {
        case .noRegistrationEndpoint: return "no_registration_endpoint"
        case .provisioningTokenRefused: return "provisioning_token_refused"
        case .refused(let code, _): return code
        case .managementRefused: return "registration_token_refused"
        case .unexpectedStatus: return "unexpected_status"
        case .malformedAnswer, .missingClientID: return "malformed_response"
        case .foreignManagementURI: return "foreign_registration_client_uri"
        case .keySetChanged: return "jwks_changed"
        case .managementUnavailable: return "management_unavailable"
        case .keyGeneration: return "key_generation_failed"
        case .unusableURL: return "unusable_url"
        case .notRegistered: return "not_registered"
        }
    }

    public var description: String {
        switch self {
        case .noRegistrationEndpoint(let issuer):
            return "\(issuer) offers no dynamic client registration (no registration_endpoint in its metadata)"
        case .provisioningTokenRefused(let status):
            return "the provisioning token was refused (HTTP \(status))"
        case .refused(let code, let description):
            return "the provider refused the registration: \(code)" + (description.map { ": " + $0 } ?? "")
        case .managementRefused(let status):
            return "the registration access token was refused (HTTP \(status))"
        case .unexpectedStatus(let operation, let status):
            return "the registration endpoint answered HTTP \(status) to \(operation.rawValue)"
        case .malformedAnswer(let operation, let reason):
            return "the answer to \(operation.rawValue) is malformed: \(reason)"
        case .missingClientID:
            return "the registration answer has no client_id"
        case .foreignManagementURI(let uri, let issuer):
            return "registration_client_uri \(uri) is not on the issuer's origin (\(issuer))"
        case .keySetChanged:
            return "the provider answered with another jwks than the one sent"
        case .managementUnavailable:
            return "the provider gave no registration access token, so the registration cannot be read, changed or deleted"
        case .keyGeneration(let reason):
            return "the client key could not be made: \(reason)"
        case .notRegistered(let profile):
            return "profile '\(profile)' holds no client registration of its own"
        case .unusableURL(let url):
            return "\(url) is not an https URL (or http on loopback)"
        }
    }
}

/// The four operations of RFC 7591 / RFC 7592.
public enum RegistrationOperation: String, Sendable, Equatable {
    /// POST to the registration endpoint.
    case create
    /// GET of the client configuration endpoint.
    case read
    /// PUT of the client configuration endpoint.
    case update
    /// DELETE of the client configuration endpoint.
    case delete
}
