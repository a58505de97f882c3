import LatchkeyHTTP

/// A second revocation request for a provider that refuses the first (providers.md, "Revocation"):
/// Glewlwyd answers a public client's client_id-only request with 401 and accepts the client's own
/// access token as its credential instead. As data, so the revocation code holds no provider's name
/// and the same request goes through the session's binding like any other.
struct RevocationFallback: Sendable, Equatable {
    /// The answer status that asks for the second request.
    let status: Int
    /// The client authentication method whose requests get it.
    let authMethod: ClientAuthMethod

    /// The same request presenting `accessToken` in `Authorization` when `response` is the refusal
    /// this fallback answers; nil otherwise. A DPoP-bound access token goes as `DPoP`, the proof
    /// carrying its `ath` (RFC 9449 §7.1); the client is still named by its own authentication.
    func request(
        after response: HTTPResponse, to request: ProviderRequest, authMethod: ClientAuthMethod,
        accessToken: String?, bound: Bool
    ) -> ProviderRequest? {
        guard response.status == status, authMethod == self.authMethod, let accessToken else { return nil }
        var again = request
        again.setHeader("Authorization", (bound ? "DPoP " : "Bearer ") + accessToken)
        return again
    }
}

extension ProviderQuirks {
    /// Always on: it only follows a refusal, which would otherwise end the revocation.
    static let revocationFallback = RevocationFallback(status: 401, authMethod: .none)
}
