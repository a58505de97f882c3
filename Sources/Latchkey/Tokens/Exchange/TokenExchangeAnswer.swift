import LatchkeyHTTP
import LatchkeyJOSE

/// Parses the token endpoint's answer to a token exchange (RFC 8693 §2.2). Apart from
/// `TokenResponse.parse` because the members differ: `issued_token_type` is required, `token_type`
/// may be `N_A` for a token that is not an access token (§2.2.1), and a JWT's own `exp` wins over
/// `expires_in` (idpyoidc 5.0.0 copies the subject token's `expires_in`; docs/providers.md).
package enum TokenExchangeAnswer {
    /// The issued token, or what the server said instead.
    package enum Outcome: Sendable, Equatable {
        case token(ExchangedToken)
        case error(OAuthError)
    }

    /// `response` as the answer to an exchange that asked for `audiences`, read at `now`.
    package static func parse(_ response: HTTPResponse, audiences: [String], at now: Timestamp) -> Outcome {
        let object = ResponseBody.object(response)
        if let object, let code = object.string("error"), !code.isEmpty {
            return .error(.server(code: code, description: object.string("error_description"), status: response.status))
        }
        guard (200..<300).contains(response.status) else { return .error(.unexpectedStatus(response.status)) }
        guard let object else { return .error(.malformedResponse("token exchange answer is not a JSON object")) }
        guard let token = object.string("access_token"), !token.isEmpty else {
            return .error(.malformedResponse("token exchange answer has no access_token"))
        }
        guard TokenCharacters.areVSCHAR(token), !token.contains(" ") else {
            return .error(.malformedResponse("access_token has characters outside RFC 6749's VSCHAR (%x21-7E)"))
        }
        // Visible ASCII only (%x21-7E): DEL passed a `Character` comparison (found by FuzzTokenExchangeAnswer).
        guard let issued = object.string("issued_token_type"), !issued.isEmpty, CharacterClass.isVisibleASCII(issued)
        else {
            return .error(.malformedResponse("token exchange answer has no issued_token_type (RFC 8693 §2.2.1)"))
        }
        let type: String
        switch object["token_type"] {
        case nil, .null?: type = "Bearer"
        case .string(let raw)? where raw.lowercased() == "bearer": type = "Bearer"
        case .string(let raw)? where raw.lowercased() == "dpop": type = "DPoP"
        case .string(let raw)? where raw.uppercased() == "N_A":
            guard issued != TokenExchange.accessTokenType else {
                return .error(.malformedResponse("token_type N_A for an access token (RFC 8693 §2.2.1 allows it only for other types)"))
            }
            type = "N_A"
        case .string(let raw)?:
            return .error(.malformedResponse("token_type \"\(raw)\" is not supported: expected Bearer, DPoP or N_A"))
        default:
            return .error(.malformedResponse("token_type is not a string"))
        }
        if object["expires_in"] != nil && object.lenientInt("expires_in") == nil {
            return .error(.malformedResponse("expires_in is not a number"))
        }
        let claims = Self.claims(token)
        let expiresAt: Timestamp?
        if let exp = claims?.expiresAt {
            expiresAt = Timestamp(timeIntervalSince1970: Double(min(max(exp, 0), 253_402_300_799)))
        } else {
            expiresAt = object.lenientInt("expires_in").map { now.addingTimeInterval(Double(min(max($0, 0), 315_360_000))) }
        }
        let audience = claims.map(\.audience).flatMap { $0.isEmpty ? nil : $0 } ?? audiences
        return .token(
            ExchangedToken(
                token: token, issuedTokenType: issued, tokenType: type, expiresAt: expiresAt, scope: object.string("scope"),
                audience: audience))
    }

    /// The unverified claims of a JWT, nil for an opaque token: the client only reads its own
    /// token's lifetime and audience, which the server that signed it vouches for anyway.
    static func claims(_ token: String) -> JWTClaims? {
        let parts = token.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 3, let payload = try? Base64URL.decode(parts[1]) else { return nil }
        return try? JWTClaims(payload: payload)
    }
}
