/// What a request to the provider is for. Authenticators look at it (client authentication goes to
/// the token, revocation, PAR, device and CIBA endpoints; DPoP also to resources), and the client
/// picks a transport by it, so a client certificate (RFC 8705) goes only where it belongs.
public enum EndpointRole: String, Sendable, Hashable, CaseIterable {
    /// OpenID Connect Discovery / RFC 8414 metadata.
    case discovery
    /// The issuer's JSON Web Key Set.
    case jwks
    /// The token endpoint (every grant, refresh).
    case token
    /// RFC 7009 revocation.
    case revocation
    /// RFC 9126 pushed authorization requests.
    case pushedAuthorization = "pushed_authorization"
    /// RFC 8628 device authorization.
    case deviceAuthorization = "device_authorization"
    /// OpenID CIBA backchannel authentication.
    case backchannelAuthentication = "backchannel_authentication"
    /// The authorization endpoint (front channel): the client sends nothing there itself; its errors
    /// come back on the redirect.
    case authorization
    /// A protected resource (an API called with the access token).
    case resource
    /// RFC 7591 registration and RFC 7592 management of the client (`register`).
    case registration

    /// True for endpoints where the client authenticates itself (RFC 6749 §2.3).
    public var authenticatesClient: Bool {
        switch self {
        case .token, .revocation, .pushedAuthorization, .deviceAuthorization, .backchannelAuthentication: return true
        case .discovery, .jwks, .authorization, .resource, .registration: return false
        }
    }
}
