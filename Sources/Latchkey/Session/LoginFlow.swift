/// Which sign-in flow to run.
public enum LoginFlow: String, Sendable, Equatable, CaseIterable {
    /// RFC 8628 device authorization grant (the default).
    case device
    /// Authorization code + PKCE with a loopback redirect listener (RFC 8252 §7.3).
    case browser
    /// Authorization code + PKCE; the user pastes the redirect URL (or the bare code).
    case paste
    /// RFC 6749 §4.4: no person; the client authenticates and acts as itself.
    case clientCredentials = "client-credentials"
    /// OpenID CIBA in poll mode: the provider asks the person named by a login hint on their own
    /// device; needs client authentication.
    case ciba
    /// RFC 7523 §2.1: no person; an assertion from elsewhere (a Kubernetes service-account token,
    /// a SPIFFE JWT-SVID) read from a file at each use, posted as the grant, and posted again
    /// from the file's current content when the token expires.
    case jwtBearer = "jwt-bearer"

    /// True for the grants that run again instead of refreshing: no person, no refresh token,
    /// no ID token.
    public var isRepeatedGrant: Bool { self == .clientCredentials || self == .jwtBearer }
}
