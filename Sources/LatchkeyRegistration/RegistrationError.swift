import Latchkey
import LatchkeyHTTP

/// What went wrong registering or managing a client (RFC 7591 / RFC 7592): the one error type
/// this module's operations throw. Each case carries what the person needs to fix it; none
/// carries a token, a secret or key material. A failure of the layer below keeps its own typed
/// error inside (`latchkey`, `storage`, `profileInvalid`, `profileStorage`).
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
    /// What the core reported: discovery, the network (after `TransientFailure`'s repeats), an
    /// endpoint that kept failing, or a client key file that cannot be used.
    case latchkey(LatchkeyError)
    /// The registration file, a generated key's file, or a write the caller's checkpoint refused.
    case storage(TokenStoreError)
    /// The profile's settings file is not valid JSON or lacks what a profile needs (the core's
    /// `ProfileFileError.invalid`: its path, and the reason naming the member).
    case profileInvalid(path: String, reason: String)
    /// Reading or writing the profile's settings failed the store's file rules (the core's
    /// `ProfileFileError.storage`).
    case profileStorage(TokenStoreError)

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
        case .latchkey(let error): return error.code
        case .storage, .profileInvalid, .profileStorage: return "storage_error"
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
        case .latchkey(let error): return error.description
        case .storage(let error): return error.description
        case .profileInvalid, .profileStorage: return profileFileError.map(\.description) ?? code
        }
    }

    /// Case by case, as the synthesized equality would be; `LatchkeyError` is not `Equatable`, so
    /// two `latchkey` cases are equal when their errors have the same code and the same message.
    public static func == (a: RegistrationError, b: RegistrationError) -> Bool {
        switch (a, b) {
        case (.noRegistrationEndpoint(let x), .noRegistrationEndpoint(let y)): return x == y
        case (.provisioningTokenRefused(let x), .provisioningTokenRefused(let y)): return x == y
        case (.refused(let x, let xd), .refused(let y, let yd)): return x == y && xd == yd
        case (.managementRefused(let x), .managementRefused(let y)): return x == y
        case (.unexpectedStatus(let x, let xs), .unexpectedStatus(let y, let ys)): return x == y && xs == ys
        case (.malformedAnswer(let x, let xr), .malformedAnswer(let y, let yr)): return x == y && xr == yr
        case (.missingClientID, .missingClientID), (.managementUnavailable, .managementUnavailable): return true
        case (.foreignManagementURI(let x, let xi), .foreignManagementURI(let y, let yi)): return x == y && xi == yi
        case (.keySetChanged(let x, let xe), .keySetChanged(let y, let ye)): return x == y && xe == ye
        case (.keyGeneration(let x), .keyGeneration(let y)): return x == y
        case (.notRegistered(let x), .notRegistered(let y)): return x == y
        case (.unusableURL(let x), .unusableURL(let y)): return x == y
        case (.latchkey(let x), .latchkey(let y)): return x.code == y.code && x.message == y.message
        case (.storage(let x), .storage(let y)): return x == y
        case (.profileInvalid(let x, let xr), .profileInvalid(let y, let yr)): return x == y && xr == yr
        case (.profileStorage(let x), .profileStorage(let y)): return x == y
        default: return false
        }
    }

    /// A profile file's failure, kept apart from the registration file's.
    package init(_ error: ProfileFileError) {
        switch error {
        case .invalid(let path, let reason): self = .profileInvalid(path: path, reason: reason)
        case .storage(let error): self = .profileStorage(error)
        }
    }

    /// The core's error for `profileInvalid` and `profileStorage` (what `init(_:)` was given);
    /// nil for the other cases.
    package var profileFileError: ProfileFileError? {
        switch self {
        case .profileInvalid(let path, let reason): return .invalid(path: path, reason: reason)
        case .profileStorage(let error): return .storage(error)
        default: return nil
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
