/// What an access token is bound to: nothing (a bearer token), the session's DPoP key, or the
/// client certificate it was issued to.
public enum TokenBinding: String, Sendable, Equatable, CaseIterable {
    /// A bearer token: whoever holds it can use it.
    case none
    /// Bound to the session's P-256 key (RFC 9449): useless without a proof from that key.
    case dpop
    /// Bound to the client certificate (RFC 8705 §3): a JWT access token carrying `cnf.x5t#S256`,
    /// useless on a connection that does not present that certificate. An opaque token shows no
    /// binding, so it counts as `none`.
    case mtls

    /// The binding of `token`, from its type and, for a JWT, its confirmation claim.
    public init(_ token: Token) {
        if token.tokenType == "DPoP" {
            self = .dpop
        } else if TokenBindingCheck.certificateThumbprint(token.accessToken) != nil {
            self = .mtls
        } else {
            self = .none
        }
    }
}
