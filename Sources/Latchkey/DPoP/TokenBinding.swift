/// What an access token is bound to: nothing (a bearer token) or the session's DPoP key.
public enum TokenBinding: String, Sendable, Equatable, CaseIterable {
    /// A bearer token: whoever holds it can use it.
    case none
    /// Bound to the session's P-256 key (RFC 9449): useless without a proof from that key.
    case dpop

    /// The binding of `token`, from its type.
    public init(_ token: Token) { self = token.tokenType == "DPoP" ? .dpop : .none }
}
