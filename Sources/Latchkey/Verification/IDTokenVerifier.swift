import LatchkeyCrypto
import LatchkeyJOSE

/// Verifies ID tokens per OpenID Connect Core §3.1.3.7, and the §12.2 rules for refreshed ones.
/// Claims are checked before the signature, so a bad token never costs a JWKS refetch.
///
/// It is the one verifier (go-oidc's model): `latchkey verify` runs it too, for any JWT
/// (`TokenKind.jwt`), so the time rules below are the same for every token the project judges.
package struct IDTokenVerifier: Sendable {
    /// Which registered claims a token must carry; every other rule is the same for both kinds.
    package enum TokenKind: Sendable, Equatable {
        /// An OIDC ID token (OIDC Core §2): `iss`, `sub`, `aud`, `exp` and `iat` are required.
        case idToken
        /// Any JWT (RFC 7519 §4.1: every registered claim optional). Only what is checked must be
        /// there: `iss` with the issuer check, `aud` with the audience check, and `exp` with the
        /// time checks, since a token that never expires is not one to call valid.
        case jwt
    }

    /// What to check. The defaults are the safe ones; the options that weaken verification are named
    /// for what they give up.
    package struct Configuration: Sendable {
        /// The expected `iss`, exactly.
        package var issuer: String
        /// The client_id that must be in `aud` (and equal `azp` when present).
        package var clientID: String
        /// Algorithms the caller accepts (already limited to what the provider advertises).
        package var allowedAlgorithms: Set<JWSAlgorithm>
        /// Seconds of clock tolerance for `exp`, `nbf` and `iat` (and `maxAge`).
        package var leeway: Double
        /// Refuse tokens issued longer ago than this many seconds (nil: no limit).
        package var maxAge: Double?
        /// Microsoft Entra `/common` and `/organizations`: the metadata issuer contains the literal
        /// `{tenantid}`, which is replaced by the token's `tid` claim before the exact comparison.
        package var substituteEntraTenantID: Bool
        /// UNSAFE: accepts tokens from any issuer. Only for `latchkey verify` without `--issuer`.
        package var skipIssuerCheck: Bool
        /// UNSAFE: accepts tokens for any audience. Only for verifying tokens not meant for this client.
        package var skipClientIDCheck: Bool
        /// UNSAFE: accepts expired tokens, tokens not valid yet and tokens issued in the future
        /// (`verify --no-time-check`).
        package var skipExpiryCheck: Bool
        /// The claims the token must carry: an ID token's, or only those checked.
        package var kind: TokenKind
        /// What the sign-in asked of the authentication (OIDC Core §3.1.2.1, §2): with `acr_values`
        /// the token's `acr` must be one of them; with `max_age` its `auth_time` must be present and
        /// no older than `max_age` plus the leeway. Empty: nothing asked, nothing checked.
        package var authentication = AuthenticationRequirement()

        /// Safe defaults: every check on, 60 s leeway, an ID token.
        package init(
            issuer: String, clientID: String, allowedAlgorithms: Set<JWSAlgorithm> = Set(JWSAlgorithm.allCases),
            leeway: Double = 60, maxAge: Double? = nil, substituteEntraTenantID: Bool = false,
            skipIssuerCheck: Bool = false, skipClientIDCheck: Bool = false, skipExpiryCheck: Bool = false,
            kind: TokenKind = .idToken
        ) {
            self.issuer = issuer
            self.clientID = clientID
            self.allowedAlgorithms = allowedAlgorithms
            self.leeway = leeway
            self.maxAge = maxAge
            self.substituteEntraTenantID = substituteEntraTenantID
            self.skipIssuerCheck = skipIssuerCheck
            self.skipClientIDCheck = skipClientIDCheck
            self.skipExpiryCheck = skipExpiryCheck
            self.kind = kind
        }
    }

    /// What is checked.
    package var configuration: Configuration
    /// Where keys come from.
    package let keySet: any KeySet
    let time: any TimeSource

    /// Makes a verifier.
    package init(configuration: Configuration, keySet: any KeySet, time: any TimeSource) {
        self.configuration = configuration
        self.keySet = keySet
        self.time = time
    }

    /// The verifier a client uses for its issuer's ID tokens: algorithms configured ∩ advertised,
    /// the configured leeway, and the Entra tenant substitution when that quirk is on.
    package static func forClient(
        _ configuration: ClientConfiguration, metadata: ProviderMetadata, keySet: any KeySet,
        time: any TimeSource
    ) throws(LatchkeyError) -> IDTokenVerifier {
        let algorithms = try allowedAlgorithms(
            configured: configuration.allowedAlgorithms,
            advertised: metadata.idTokenSigningAlgValuesSupported)
        return IDTokenVerifier(
            configuration: .init(
                issuer: metadata.issuer, clientID: configuration.clientID,
                allowedAlgorithms: algorithms, leeway: configuration.leeway,
                substituteEntraTenantID: configuration.quirks.entraTenantIssuer),
            keySet: keySet, time: time)
    }

    /// The algorithms both the profile allows and the provider advertises (RS256 alone when the
    /// provider says nothing, as OIDC Discovery §3 makes RS256 the default). Never `none`, never HS*.
    package static func allowedAlgorithms(configured: [String]?, advertised: [String]?) throws(LatchkeyError) -> Set<JWSAlgorithm> {
        var set = Set(JWSAlgorithm.allCases)
        if let configured { set = set.intersection(configured.compactMap(JWSAlgorithm.init(rawValue:))) }
        let advertisedSet = advertised.map { Set($0.compactMap(JWSAlgorithm.init(rawValue:))) } ?? [.rs256]
        set = set.intersection(advertisedSet)
        guard !set.isEmpty else { throw .verification(.noAllowedAlgorithm(advertised: advertised ?? ["RS256"])) }
        return set
    }

    /// The claim a CIBA ID token names its authentication request with (CIBA Core §7.4).
    package static let authRequestIDClaim = "urn:openid:params:jwt:claim:auth_req_id"

    /// Verifies `idToken`. `nonce` is the one sent (nil for the device grant, which cannot send one);
    /// `accessToken` enables the `at_hash` check when the token carries one; `authRequestID` (CIBA)
    /// must equal the token's `urn:openid:params:jwt:claim:auth_req_id` when it carries one, so a
    /// token issued for another person's request is refused (CIBA Core §7.4).
    package func verify(
        _ idToken: String, nonce: String? = nil, accessToken: String? = nil,
        authRequestID: String? = nil
    ) async throws(LatchkeyError) -> VerifiedIDToken {
        let jws: JWS
        let claims: JWTClaims
        do {
            jws = try JWS(compact: idToken)
            claims = try JWTClaims(payload: jws.payload)
        } catch {
            throw .verification(.jose(error))
        }
        guard let alg = jws.algorithm else { throw .verification(.jose(.unsupportedAlgorithm(jws.header.alg))) }
        guard configuration.allowedAlgorithms.contains(alg) else { throw .verification(.jose(.algorithmNotAllowed(alg.rawValue))) }
        try checkClaims(claims, alg: alg, nonce: nonce, accessToken: accessToken)
        if let authRequestID, let claim = claims.json[Self.authRequestIDClaim] {
            guard let got = claim.stringValue, ConstantTime.equals(Array(got.utf8), Array(authRequestID.utf8)) else {
                throw .verification(.authRequestIDMismatch)
            }
        }
        _ = try await keySet.verify(jws, allowed: configuration.allowedAlgorithms)
        return VerifiedIDToken(compact: idToken, header: jws.header, claims: claims, algorithm: alg)
    }

    /// The claim checks of §3.1.3.7 (steps 2–4, 9–11) and §3.2.2.9 (`at_hash`).
    func checkClaims(_ claims: JWTClaims, alg: JWSAlgorithm, nonce: String?, accessToken: String?) throws(LatchkeyError) {
        let c = configuration
        let idToken = c.kind == .idToken
        if idToken || !c.skipIssuerCheck, claims.issuer == nil { throw .verification(.missingClaim("iss")) }
        if idToken, claims.subject == nil { throw .verification(.missingClaim("sub")) }
        if !c.skipIssuerCheck, let iss = claims.issuer {
            var expected = c.issuer
            if c.substituteEntraTenantID, EntraTenantTemplate.parts(expected) != nil, let tid = claims.json["tid"]?.stringValue {
                expected = EntraTenantTemplate.substitute(expected, tenant: tid)
            }
            guard iss == expected else { throw .verification(.issuer(expected: expected, got: iss)) }
        }
        if !c.skipClientIDCheck {
            guard claims.audience.contains(c.clientID) else {
                throw .verification(.audience(expected: c.clientID, got: claims.audience))
            }
            if let azp = claims.authorizedParty {
                guard azp == c.clientID else { throw .verification(.authorizedParty(expected: c.clientID, got: azp)) }
            } else if claims.audience.count > 1 {
                throw .verification(.authorizedParty(expected: c.clientID, got: nil))
            }
        }
        if idToken {
            guard claims.expiresAt != nil else { throw .verification(.missingClaim("exp")) }
            guard claims.issuedAt != nil else { throw .verification(.missingClaim("iat")) }
        }
        if !c.skipExpiryCheck { try checkTimes(claims) }
        try checkAuthentication(claims)
        if let nonce {
            guard let got = claims.nonce, ConstantTime.equals(Array(got.utf8), Array(nonce.utf8)) else {
                throw .verification(.nonceMismatch)
            }
        }
        if let atHash = claims.accessTokenHash, let accessToken {
            guard AccessTokenHash.matches(atHash, accessToken: accessToken, algorithm: alg) else {
                throw .verification(.accessTokenHashMismatch)
            }
        }
    }

    /// The time rules, one leeway L for all (RFC 7519 §4.1.4–4.1.6, OIDC Core §3.1.3.7 steps 9–10):
    /// accepted only while now < exp + L ("MUST NOT be accepted on or after" exp), from nbf − L on
    /// ("MUST NOT be accepted before" nbf), and only when iat ≤ now + L. Each NumericDate is judged
    /// with its fraction (RFC 7519 §2) against the unrounded clock, so nothing is rounded in the
    /// token's favour; the errors report whole seconds.
    func checkTimes(_ claims: JWTClaims) throws(LatchkeyError) {
        let c = configuration
        let now = time.now().timeIntervalSince1970
        let nowSeconds = Int64(now.rounded(.down))
        guard let exp = claims.expiresAt else { throw .verification(.missingClaim("exp")) }
        guard now < Self.numericDate(claims, "exp", exp) + c.leeway else { throw .verification(.expired(exp: exp, now: nowSeconds)) }
        if let iat = claims.issuedAt {
            let issuedAt = Self.numericDate(claims, "iat", iat)
            guard issuedAt <= now + c.leeway else { throw .verification(.issuedAt(iat: iat, now: nowSeconds)) }
            if let maxAge = c.maxAge, now - issuedAt > maxAge + c.leeway {
                throw .verification(.issuedAt(iat: iat, now: nowSeconds))
            }
        } else if c.maxAge != nil {
            throw .verification(.missingClaim("iat"))
        }
        // RFC 7519 §4.1.5: a JWT must not be accepted before its nbf (OIDC does not require the claim).
        if let nbf = claims.notBefore, now < Self.numericDate(claims, "nbf", nbf) - c.leeway {
            throw .verification(.notYetValid(nbf: nbf, now: nowSeconds))
        }
    }

    /// The `acr` and `auth_time` rules when the sign-in asked for them (OIDC Core §3.1.2.1: a
    /// provider may answer with another `acr` than asked, so the client checks; §2: `auth_time` is
    /// required when `max_age` was sent).
    func checkAuthentication(_ claims: JWTClaims) throws(LatchkeyError) {
        let asked = configuration.authentication
        if !asked.acrValues.isEmpty {
            let got = claims.json["acr"]?.stringValue
            guard let got, asked.acrValues.contains(got) else {
                throw .verification(.authenticationContext(expected: asked.acrValues, got: got))
            }
        }
        if let maxAge = asked.maxAge {
            guard let authTime = claims.authTime else { throw .verification(.missingClaim("auth_time")) }
            let now = time.now().timeIntervalSince1970
            guard now - Self.numericDate(claims, "auth_time", authTime) <= Double(maxAge) + configuration.leeway else {
                throw .verification(.authenticationTooOld(authTime: authTime, maxAge: maxAge, now: Int64(now.rounded(.down))))
            }
        }
    }

    /// The claim `name` as the exact number the token carries; `JWTClaims` keeps whole seconds
    /// (`whole`), and has already refused anything that is not a NumericDate.
    private static func numericDate(_ claims: JWTClaims, _ name: String, _ whole: Int64) -> Double {
        claims.json[name]?.doubleValue ?? Double(whole)
    }

    /// OIDC Core §12.2: an ID token from a refresh must keep the original's `iss`, `sub`, `aud` and
    /// `azp` (an absent `azp` stays absent); its `iat` is when it was issued, so it cannot precede the
    /// original's; and its `auth_time` must not precede the original's (see below for why not "equal").
    /// `previous` holds the claims of the last verified ID token, which passed this same check, so
    /// they are the original sign-in's. Called after `verify` (which checked signature, time and
    /// audience) by `Refresher.refresh`.
    package static func checkRefresh(_ new: VerifiedIDToken, previous: JWTClaims) throws(LatchkeyError) {
        let got = new.claims
        func refused(_ claim: String, _ expected: String, _ found: String) -> LatchkeyError {
            .verification(.refreshMismatch(claim: claim, expected: expected, got: found))
        }
        guard got.issuer == previous.issuer else { throw refused("iss", previous.issuer ?? "none", got.issuer ?? "none") }
        guard got.subject == previous.subject else { throw refused("sub", previous.subject ?? "none", got.subject ?? "none") }
        // RFC 7519 §4.1.3: `aud` names a set of recipients, a lone string being a set of one. Compared as
        // sets, never as joined text, where ["a b"] and ["a", "b"] would look the same.
        guard Set(got.audience) == Set(previous.audience) else {
            throw refused("aud", audienceList(previous.audience), audienceList(got.audience))
        }
        guard got.authorizedParty == previous.authorizedParty else {
            throw refused("azp", previous.authorizedParty ?? "none", got.authorizedParty ?? "none")
        }
        // §12.2 asks only that `iat` be the new token's issue time, checked as for any ID token. It
        // need not exceed the previous one: a provider whose clock ran ahead and was then corrected
        // issues an earlier `iat`, and refusing it failed every refresh for as long as the step
        // (found by the soak, Tests/Soak: exit 8 on each refresh until the clock caught up).
        // §12.2 wants the original authentication's time. An earlier one names an authentication before
        // the session began, which no refresh of this session can carry: refused. A later one is
        // tolerated: Keycloak reports the SSO session's latest authentication after a re-login, and
        // the acceptance suite's "rfc" provider stamps every ID token with the time it is issued.
        if let authTime = got.authTime, let original = previous.authTime, authTime < original {
            throw refused("auth_time", "at least \(original)", String(authTime))
        }
    }

    private static func audienceList(_ audience: [String]) -> String {
        audience.isEmpty ? "none" : "[" + audience.map { "\"\($0)\"" }.joined(separator: ", ") + "]"
    }
}

/// An ID token that passed `IDTokenVerifier`.
package struct VerifiedIDToken: Sendable {
    /// The compact token as received.
    package let compact: String
    /// Its protected header.
    package let header: JOSEHeader
    /// Its claims.
    package let claims: JWTClaims
    /// The algorithm it was signed with.
    package let algorithm: JWSAlgorithm

    /// The `sub` claim (always present after verification).
    package var subject: String { claims.subject ?? "" }
    /// The claims as compact JSON text, as stored in the session.
    package var claimsJSON: String { JSONValue.object(claims.json).jsonText }
}
