/// Why a DPoP exchange broke the protocol (RFC 9449). Data only; programs word it themselves.
public enum TokenBindingProblem: Sendable, Equatable, CustomStringConvertible {
    /// Proofs were required (`DPoPMode.always`, or a bound session refreshing) and the server
    /// answered with a `Bearer` token.
    case bearerAnswer
    /// The server answered `token_type: DPoP` though no proof was sent.
    case unrequestedDPoP
    /// The access token's `cnf.jkt` is not our key's RFC 7638 thumbprint.
    case thumbprintMismatch(expected: String, got: String)
    /// The access token's `cnf.x5t#S256` (RFC 8705 §3.1) is not the SHA-256 thumbprint of the
    /// client certificate presented.
    case certificateThumbprintMismatch(expected: String, got: String)
    /// The server asked for a fresh nonce again right after the retry that carried one (§8, §9).
    case nonceRequestedTwice(EndpointRole)
    /// A DPoP-bound token is to be used but the session holds no key.
    case missingKey
    /// The key could not make a proof.
    case proofFailed(String)

    /// One line.
    public var description: String {
        switch self {
        case .bearerAnswer: return "DPoP proofs were sent but the server issued a Bearer token"
        case .unrequestedDPoP: return "the server issued a DPoP token though no proof was sent"
        case .thumbprintMismatch(let e, let g): return "the access token's cnf.jkt is \(g), expected this key's thumbprint \(e)"
        case .certificateThumbprintMismatch(let e, let g):
            return "the access token's cnf.x5t#S256 is \(g), expected the client certificate's thumbprint \(e)"
        case .nonceRequestedTwice(let role): return "the \(role.rawValue) server asked for a new DPoP nonce twice in a row"
        case .missingKey: return "the token is DPoP-bound but the session holds no DPoP key"
        case .proofFailed(let reason): return "could not make a DPoP proof: \(reason)"
        }
    }
}
