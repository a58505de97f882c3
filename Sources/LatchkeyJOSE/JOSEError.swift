/// Why a JOSE object (JWS, JWK, JWK Set, JWT claims) was refused. Each case names the check that failed;
/// messages say what was expected and what was found, never key material.
public enum JOSEError: Error, Sendable, Equatable, CustomStringConvertible {
    /// Not well-formed: bad base64url, bad JSON, wrong segment count, wrong member type, too large.
    case malformed(String)
    /// The `alg` is not one Latchkey implements (`none`, HS*, EdDSA, anything unknown).
    case unsupportedAlgorithm(String)
    /// The `alg` is implemented but not in the caller's allowed set.
    case algorithmNotAllowed(String)
    /// The header lists `crit` parameters this implementation does not understand (RFC 7515 §4.1.11).
    case unsupportedCriticalHeader([String])
    /// No key in the set can be used for this token (unknown `kid`, or no key of the right type).
    case noMatchingKey(kid: String?)
    /// A key was refused (bad parameters, too small, wrong use, not on the curve, ...).
    case invalidKey(String)
    /// The signature did not verify with any candidate key.
    case invalidSignature
    /// A claim check failed; `reason` says what was expected and what was got.
    case claimInvalid(claim: String, reason: String)
    /// `exp` (plus leeway) is in the past.
    case expired(exp: Int64, now: Int64)
    /// `nbf` (minus leeway) is in the future.
    case notYetValid(nbf: Int64, now: Int64)
    /// A signer was asked for an algorithm its key cannot make (e.g. ES256 with an RSA key).
    case algorithmDoesNotFitKey(algorithm: String, key: String)

    /// A one-line message for people.
    public var description: String {
        switch self {
        case .malformed(let s): return "malformed JOSE object: \(s)"
        case .unsupportedAlgorithm(let a): return "unsupported algorithm \"\(a)\""
        case .algorithmNotAllowed(let a): return "algorithm \"\(a)\" is not allowed"
        case .unsupportedCriticalHeader(let names): return "unsupported critical header parameter(s): \(names.joined(separator: ", "))"
        case .noMatchingKey(let kid):
            if let kid { return "no key with kid \"\(kid)\" in the key set" }
            return "no key in the key set fits the token"
        case .invalidKey(let s): return "invalid key: \(s)"
        case .invalidSignature: return "signature verification failed"
        case .claimInvalid(let claim, let reason): return "claim \"\(claim)\" invalid: \(reason)"
        case .expired(let exp, let now): return "token expired at \(exp) (now \(now))"
        case .notYetValid(let nbf, let now): return "token not valid before \(nbf) (now \(now))"
        case .algorithmDoesNotFitKey(let alg, let key): return "algorithm \(alg) cannot be signed with an \(key) key"
        }
    }
}
