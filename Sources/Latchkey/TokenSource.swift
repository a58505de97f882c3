/// "Give me a valid access token" (x/oauth2's `TokenSource`): the one thing code that calls APIs
/// needs. `Session` is one; `AuthorizedTransport` uses one.
public protocol TokenSource: Sendable {
    /// A valid access token. `rejected` is a token a resource server has just refused
    /// (`401 … error="invalid_token"`): the answer must then be another token, or an error.
    func token(replacing rejected: Token?) async throws(LatchkeyError) -> Token
    /// Where proofs for this source's DPoP-bound tokens come from (`AuthorizedTransport` asks);
    /// nil for a source of Bearer tokens only.
    var dpopProofs: (any DPoPProofSource)? { get }
}

extension TokenSource {
    /// A valid access token.
    public func token() async throws(LatchkeyError) -> Token { try await token(replacing: nil) }

    /// Most sources hand out Bearer tokens.
    public var dpopProofs: (any DPoPProofSource)? { nil }
}
