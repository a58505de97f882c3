import LatchkeyJOSE

/// Why an ID token was refused (OIDC Core §3.1.3.7, §12.2). Messages say what was expected and what was got.
public enum IDTokenError: Error, Sendable, Equatable, CustomStringConvertible {
    /// A JOSE-level failure: malformed, algorithm, key, signature.
    case jose(JOSEError)
    /// A required claim is absent.
    case missingClaim(String)
    /// `iss` differs from the expected issuer.
    case issuer(expected: String, got: String)
    /// `aud` does not contain the client_id.
    case audience(expected: String, got: [String])
    /// `azp` is not the client_id, or missing with several audiences.
    case authorizedParty(expected: String, got: String?)
    /// `exp` plus leeway is in the past.
    case expired(exp: Int64, now: Int64)
    /// `iat` minus leeway is in the future (or the token is older than allowed).
    case issuedAt(iat: Int64, now: Int64)
    /// `nbf` minus leeway is in the future: the token is not valid yet.
    case notYetValid(nbf: Int64, now: Int64)
    /// `nonce` differs from (or lacks) the one sent.
    case nonceMismatch
    /// `at_hash` does not match the access token.
    case accessTokenHashMismatch
    /// No algorithm is both allowed by the profile and advertised by the provider.
    case noAllowedAlgorithm(advertised: [String])
    /// CIBA: the token's `urn:openid:params:jwt:claim:auth_req_id` names another authentication request.
    case authRequestIDMismatch
    /// On refresh, a claim of the new ID token differs from the previous one (OIDC Core §12.2).
    case refreshMismatch(claim: String, expected: String, got: String)
    /// The provider's `Date` shows the local clock off by more than `ClockSkew.maxShift`
    /// (`seconds`: provider minus local), too far for its times to be judged.
    case clockOffsetTooLarge(seconds: Int64)
    /// The sign-in asked for `acr_values` and the token's `acr` is none of them (nil: no `acr`).
    case authenticationContext(expected: [String], got: String?)
    /// The sign-in sent `max_age` and the token's `auth_time` is older than that plus the leeway.
    case authenticationTooOld(authTime: Int64, maxAge: Int, now: Int64)

    /// One line saying what was expected and what was got.
    public var description: String {
        switch self {
        case .jose(let e): return e.description
        case .missingClaim(let c): return "ID token has no \"\(c)\" claim"
        case .issuer(let e, let g): return "ID token issued by a different provider, expected \"\(e)\" got \"\(g)\""
        case .audience(let e, let g): return "expected audience \"\(e)\" got \(g.map { "\"\($0)\"" }.joined(separator: ", "))"
        case .authorizedParty(let e, let g): return "expected azp \"\(e)\" got " + (g.map { "\"\($0)\"" } ?? "none")
        case .expired(let exp, let now): return "ID token expired at \(exp) (now \(now))"
        case .issuedAt(let iat, let now): return "ID token iat \(iat) is not acceptable (now \(now))"
        case .notYetValid(let nbf, let now): return "ID token is not valid before nbf \(nbf) (now \(now))"
        case .nonceMismatch: return "ID token nonce does not match the one sent"
        case .accessTokenHashMismatch: return "ID token at_hash does not match the access token"
        case .noAllowedAlgorithm(let adv): return "no allowed signing algorithm among those advertised (\(adv.joined(separator: ", ")))"
        case .authRequestIDMismatch: return "ID token auth_req_id claim does not match the authentication request"
        case .refreshMismatch(let c, let e, let g): return "refreshed ID token changed \"\(c)\": expected \"\(e)\" got \"\(g)\""
        case .authenticationContext(let expected, let got):
            return "ID token acr is " + (got.map { "\"\($0)\"" } ?? "missing") + ", expected one of "
                + expected.map { "\"\($0)\"" }.joined(separator: ", ")
        case .authenticationTooOld(let authTime, let maxAge, let now):
            return "ID token auth_time \(authTime) is more than max_age \(maxAge) s ago (now \(now))"
        case .clockOffsetTooLarge(let seconds):
            return "the local clock is \(seconds.magnitude) s \(seconds > 0 ? "behind" : "ahead of") the provider's, more than 24 h:"
                + " ID token times cannot be judged; set the clock (NTP) and try again"
        }
    }
}
