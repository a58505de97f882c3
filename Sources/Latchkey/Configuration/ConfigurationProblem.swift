/// Why a configuration cannot work. Carries the data; the program using the library decides how to
/// tell the person which option or setting supplies it.
public enum ConfigurationProblem: Sendable, Equatable, CustomStringConvertible {
    /// The provider's metadata lacks an endpoint the flow needs (the metadata member name, e.g.
    /// `device_authorization_endpoint`), and none was configured.
    case missingEndpoint(String)
    /// A `client_secret_*` method was chosen without a secret.
    case missingClientSecret(method: ClientAuthMethod)
    /// The issuer is not an https URL without query or fragment (http only for loopback).
    case unusableIssuer(String)
    /// The redirect URI cannot be used by this flow.
    case unusableRedirectURI(String, reason: String)
    /// A mutual-TLS method (RFC 8705) was chosen without a client certificate and key.
    case missingClientCertificate(method: ClientAuthMethod)
    /// The paste flow was asked for without a way to read the pasted text.
    case missingPasteReader
    /// The paste flow's input ended (stdin closed) before a redirect URL or code was pasted: the
    /// person's input, not a signal, so not `LatchkeyError.cancelled`.
    case endOfPastedInput
    /// A public client asked for `offline_access` without DPoP while the policy demands that its
    /// refresh token be bound (`OfflineAccessPolicy.requireDPoP`).
    case offlineAccessWithoutDPoP
    /// Pushed authorization requests (RFC 9126) were turned off, but the provider's metadata says
    /// `require_pushed_authorization_requests`.
    case pushedAuthorizationRequired
    /// A resource indicator is not an absolute URI without fragment (RFC 8707 §2).
    case unusableResource(String)
    /// An extra request parameter has a name the protocol owns, or is not printable.
    case unusableParameter(name: String, refusal: RequestParameter.Refusal)
    /// The client-credentials grant (RFC 6749 §4.4) was asked for by a public client: a client
    /// without credentials has no identity of its own to act as.
    case clientCredentialsNeedClientAuthentication
    /// CIBA was asked for without a login hint naming the person to ask.
    case missingLoginHint
    /// CIBA was asked for by a public client: the provider asks a person on another device, so the
    /// request must come from a client that proves who it is (CIBA Core §7.1).
    case backchannelNeedsClientAuthentication
    /// A configured endpoint (named by its metadata member) is not an https URL (http only to loopback).
    case unusableEndpoint(member: String, url: String)
    /// A CIBA request value cannot be sent (the binding message, the requested expiry).
    case invalidBackchannelRequest(reason: String)
    /// `private_key_jwt` was chosen without a source for the client's private key.
    case missingClientKey
    /// The JWT bearer grant (RFC 7523 §2.1) needs the file its assertion is read from.
    case missingAssertion
    /// The chosen client assertion algorithm cannot be signed with the client's key (e.g. ES256 with
    /// an RSA key, ES384 with a P-256 key).
    case clientKeyDoesNotFitAlgorithm(algorithm: String, key: String)
    /// The client assertion algorithm is not in the provider's
    /// `token_endpoint_auth_signing_alg_values_supported`.
    case clientAssertionAlgorithmNotAdvertised(algorithm: String, advertised: [String])
    /// The URL given as the issuer is a discovery document's (`…/.well-known/openid-configuration`
    /// or RFC 8414's `/.well-known/oauth-authorization-server/…`); `issuer` is the one it stands for.
    case discoveryURLAsIssuer(given: String, issuer: String)
    /// A token exchange asked for the session's refresh or ID token as its subject, and the
    /// session holds none (`kind`: `refresh_token` or `id_token`).
    case missingSubjectToken(kind: String)
    /// A resource request went to an origin the access token may not go to
    /// (`AuthorizedTransport`'s allowed origins); nothing was sent and no token was read.
    case tokenOriginNotAllowed(origin: String)

    /// For `discoveryURLAsIssuer`, the issuer the given URL stands for.
    public var issuerMeant: String? {
        if case .discoveryURLAsIssuer(_, let issuer) = self { return issuer }
        return nil
    }

    /// One line.
    public var description: String {
        switch self {
        case .missingEndpoint(let name): return "the provider's metadata has no \(name)"
        case .missingClientSecret(let method): return "\(method.rawValue) needs a client secret"
        case .unusableIssuer(let issuer):
            return "issuer \(issuer) must be an https URL without query or fragment (http only for loopback)"
        case .unusableRedirectURI(let uri, let reason): return "\(reason), got \(uri)"
        case .missingClientCertificate(let method): return "\(method.rawValue) needs a client certificate and its private key"
        case .missingPasteReader: return "the paste flow needs a way to read the pasted URL"
        case .endOfPastedInput: return "no redirect URL was pasted: end of input"
        case .offlineAccessWithoutDPoP:
            return "offline_access was asked for by a public client without DPoP: the refresh token would be a bearer secret"
        case .pushedAuthorizationRequired:
            return "the provider requires pushed authorization requests (require_pushed_authorization_requests), which were turned off"
        case .unusableResource(let r): return "resource \(r) is not an absolute URI without fragment (RFC 8707)"
        case .unusableParameter(let name, .protocolOwned):
            return "request parameter \(name) is owned by the protocol, so it cannot be set"
        case .unusableParameter(let name, .unusableName):
            return "request parameter name '\(name)' is not printable ASCII without spaces, '=' or '&'"
        case .unusableParameter(let name, .controlCharacterInValue):
            return "request parameter \(name) has a control character in its value"
        case .clientCredentialsNeedClientAuthentication:
            return "the client-credentials grant needs client authentication; a public client has no identity to act as"
        case .missingLoginHint: return "CIBA needs a login hint naming the person to ask"
        case .backchannelNeedsClientAuthentication:
            return "CIBA needs client authentication; a public client cannot ask for a person's approval on another device"
        case .unusableEndpoint(let member, let url):
            return "\(member) \(url) is not an https URL (http is allowed for loopback only)"
        case .invalidBackchannelRequest(let reason): return reason
        case .missingSubjectToken(let kind): return "the session holds no \(kind) to exchange"
        case .tokenOriginNotAllowed(let origin): return "not sending the access token to \(origin): not an allowed origin"
        case .missingClientKey: return "private_key_jwt needs the client's private key"
        case .missingAssertion: return "the JWT bearer grant needs an assertion file"
        case .clientKeyDoesNotFitAlgorithm(let algorithm, let key):
            return "the client assertion algorithm \(algorithm) cannot be signed with the client's \(key) key"
        case .clientAssertionAlgorithmNotAdvertised(let algorithm, let advertised):
            return "the provider does not accept client assertions signed with \(algorithm): it advertises "
                + (advertised.isEmpty ? "none" : advertised.joined(separator: ", "))
        case .discoveryURLAsIssuer(let given, let issuer):
            return "\(given) is the discovery document's URL; the issuer is \(issuer)"
        }
    }
}
