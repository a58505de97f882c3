/// Checks JWT claims against what the caller expects (OIDC Core §3.1.3.7 items 2–10, minus the
/// signature and nonce which the caller owns). Each failure names the claim, the expected and the got.
public struct ClaimsValidator: Sendable {
    /// Required exact `iss`; nil skips the check.
    public var issuer: String?
    /// Audience that `aud` must contain (the client_id); nil skips the audience and `azp` checks.
    public var audience: String?
    /// Seconds of clock skew tolerated on `exp`, `nbf` and `iat`.
    public var leeway: Int64 = 60
    /// Claims that must be present.
    public var requiredClaims: [String] = []
    /// Expected `typ` header, compared case-insensitively with an optional "application/" prefix; nil skips.
    public var expectedType: String?
    /// DANGEROUS: skips `exp`, `nbf` and `iat`, so an expired or replayed token passes. Only for
    /// inspecting old tokens (`latchkey verify --no-time-check`), never for accepting a sign-in.
    public var skipTimeChecks: Bool = false

    /// A validator; every check left nil is skipped.
    public init(issuer: String? = nil, audience: String? = nil, leeway: Int64 = 60, requiredClaims: [String] = [],
                expectedType: String? = nil, skipTimeChecks: Bool = false) {
        self.issuer = issuer
        self.audience = audience
        self.leeway = leeway
        self.requiredClaims = requiredClaims
        self.expectedType = expectedType
        self.skipTimeChecks = skipTimeChecks
    }

    /// Runs every configured check against `claims`, `header` and `now`, a NumericDate (RFC 7519
    /// §2: whole seconds since the epoch, the unit every time claim uses).
    public func validate(_ claims: JWTClaims, header: JOSEHeader, now: Int64) throws(JOSEError) {
        if let expectedType {
            guard let typ = header.typ else { throw .claimInvalid(claim: "typ", reason: "expected \"\(expectedType)\", got none") }
            guard Self.mediaType(typ) == Self.mediaType(expectedType) else {
                throw .claimInvalid(claim: "typ", reason: "expected \"\(expectedType)\", got \"\(typ)\"")
            }
        }
        if let issuer {
            guard let iss = claims.issuer else { throw .claimInvalid(claim: "iss", reason: "expected \"\(issuer)\", got none") }
            guard iss == issuer else { throw .claimInvalid(claim: "iss", reason: "expected \"\(issuer)\", got \"\(iss)\"") }
        }
        if let audience {
            guard claims.audience.contains(audience) else {
                throw .claimInvalid(claim: "aud", reason: "expected \"\(audience)\", got \(Self.list(claims.audience))")
            }
            // OIDC Core §3.1.3.7 items 4–5: several audiences need azp, and azp must be us.
            if let azp = claims.authorizedParty {
                guard azp == audience else { throw .claimInvalid(claim: "azp", reason: "expected \"\(audience)\", got \"\(azp)\"") }
            } else if claims.audience.count > 1 {
                throw .claimInvalid(claim: "azp", reason: "expected \"\(audience)\" (token has \(claims.audience.count) audiences), got none")
            }
        }
        for name in requiredClaims where claims.json[name] == nil {
            throw .claimInvalid(claim: name, reason: "required claim is missing")
        }
        if skipTimeChecks { return }
        let t = now
        guard let exp = claims.expiresAt else { throw .claimInvalid(claim: "exp", reason: "required claim is missing") }
        if t > exp &+ leeway { throw .expired(exp: exp, now: t) }
        if let nbf = claims.notBefore, t &+ leeway < nbf { throw .notYetValid(nbf: nbf, now: t) }
        if let iat = claims.issuedAt, iat > t &+ leeway {
            throw .claimInvalid(claim: "iat", reason: "issued in the future: \(iat), now \(t), leeway \(leeway)s")
        }
    }

    private static func mediaType(_ s: String) -> String {
        let l = s.lowercased()
        return l.hasPrefix("application/") ? String(l.dropFirst("application/".count)) : l
    }

    private static func list(_ a: [String]) -> String {
        a.isEmpty ? "none" : "[" + a.map { "\"\($0)\"" }.joined(separator: ", ") + "]"
    }
}
