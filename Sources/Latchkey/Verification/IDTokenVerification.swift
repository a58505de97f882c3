/// How a session verifies an ID token it was just issued, at sign-in and at every refresh alike:
/// the server's clock (measured from the answer) is checked first, then the token is verified with
/// the issuer's keys, its time claims judged by the server's clock within the leeway, algorithms
/// limited to the configured ∩ advertised.
struct IDTokenVerification: Sendable {
    let configuration: ClientConfiguration
    let keySets: KeySetCache
    let time: any TimeSource

    /// A verifier for `metadata`'s issuer that judges time by `time`.
    func verifier(for metadata: ProviderMetadata, time: any TimeSource) throws(LatchkeyError) -> IDTokenVerifier {
        try IDTokenVerifier.forClient(configuration, metadata: metadata, keySet: try keySets.keySet(for: metadata), time: time)
    }

    /// Verifies `idToken` from the provider `metadata` describes, sent in an answer whose `Date`
    /// was `skew` seconds off the local clock; `nonce`, `accessToken` (`at_hash`) and
    /// `authRequestID` (CIBA's `urn:openid:params:jwt:claim:auth_req_id`) as the flow knows them;
    /// `authentication`: what the sign-in asked for (`acr_values`, `max_age`), checked on the token.
    func verify(
        _ idToken: String, from metadata: ProviderMetadata, skew: Double?, nonce: String? = nil,
        accessToken: String?, authRequestID: String? = nil,
        authentication: AuthenticationRequirement = AuthenticationRequirement()
    ) async throws(LatchkeyError) -> VerifiedIDToken {
        try ClockSkew.check(skew)
        let judge = ClockSkew.timeSource(time, skew: skew, leeway: configuration.leeway)
        var verifier = try verifier(for: metadata, time: judge)
        verifier.configuration.authentication = authentication
        return try await verifier.verify(idToken, nonce: nonce, accessToken: accessToken, authRequestID: authRequestID)
    }
}
