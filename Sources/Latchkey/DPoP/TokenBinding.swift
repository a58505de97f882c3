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

    /// Whether `token` is DPoP-bound: its type alone says so, no JWT is read (the cached
    /// `latchkey token` asks only this).
    public static func isDPoP(_ token: Token) -> Bool { token.tokenType == "DPoP" }

    /// The binding of `token`, from its type and, for a JWT, its confirmation claim.
    public init(_ token: Token) {
        if Self.isDPoP(token) {
            self = .dpop
        } else if TokenBindingCheck.certificateThumbprint(token.accessToken) != nil {
            self = .mtls
        } else {
            self = .none
        }
    }
}
