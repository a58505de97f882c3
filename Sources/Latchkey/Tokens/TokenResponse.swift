import LatchkeyHTTP
import LatchkeyJOSE

/// A successful token-endpoint response (RFC 6749 §5.1), parsed leniently where providers differ.
package struct TokenResponse: Sendable, Equatable {
    /// The access token. Secret.
    package var accessToken: String
    /// `Bearer` or `DPoP`, normalised (providers send `bearer` too); `parse` refuses any other type.
    package var tokenType: String
    /// A new refresh token, when issued (rotation).
    package var refreshToken: String?
    /// Lifetime in seconds, sent as a number or a string.
    package var expiresIn: Int64?
    /// Granted scope.
    package var scope: String?
    /// The compact ID token, *unverified* until `IDTokenVerifier` has checked it.
    package var idToken: String?
    /// The whole response object, for extra members.
    package var raw: JSONObject
    /// The server's `Date` header, for clock-skew detection (`ClockSkew`); only from an answer
    /// over TLS or loopback (`ClockSkew.authenticatedServerDate`).
    package var serverDate: Timestamp?

    /// Makes a value (tests and custom grants).
    package init(
        accessToken: String, tokenType: String = "Bearer", refreshToken: String? = nil, expiresIn: Int64? = nil,
        scope: String? = nil, idToken: String? = nil, raw: JSONObject = JSONObject(), serverDate: Timestamp? = nil
    ) {
        self.accessToken = accessToken
        self.tokenType = tokenType
        self.refreshToken = refreshToken
        self.expiresIn = expiresIn
        self.scope = scope
        self.idToken = idToken
        self.raw = raw
        self.serverDate = serverDate
    }

    /// The outcome of one token-endpoint response.
    package enum Outcome: Sendable, Equatable {
        /// A token.
        case token(TokenResponse)
        /// Anything else: an error code, a bare status, or garbage.
        case error(OAuthError)
    }

    /// Parses a token-endpoint response by Content-Type. A response is a token ONLY when it is a 2xx
    /// carrying `access_token` and no `error` (GitHub sends pending errors with HTTP 200).
    /// An empty 400 is `invalid_grant` (Glewlwyd's answer to a replayed refresh token).
    package static func parse(_ response: HTTPResponse) -> Outcome {
        let object = ResponseBody.object(response)
        if let object, let code = object.string("error"), !code.isEmpty {
            return .error(.server(code: code, description: object.string("error_description"), status: response.status))
        }
        guard (200..<300).contains(response.status) else {
            if response.status == 400 && CharacterClass.isBlank(response.body) {
                return .error(.server(code: "invalid_grant", description: "empty HTTP 400 response", status: 400))
            }
            return .error(.unexpectedStatus(response.status))
        }
        guard let object else { return .error(.malformedResponse("token response is not a JSON object")) }
        guard let access = object.string("access_token"), !access.isEmpty else {
            return .error(.malformedResponse("token response has no access_token"))
        }
        guard TokenCharacters.areVSCHAR(access) else {
            return .error(.malformedResponse("access_token has characters outside RFC 6749's VSCHAR (%x20-7E)"))
        }
        // RFC 6749 §7.1: a client must not use a token whose type it does not understand: Bearer
        // (RFC 6750, any case: Glewlwyd and GitHub send `bearer`) and DPoP (RFC 9449; whether a
        // proof was sent is `TokenBindingCheck`'s question). A missing token_type is taken as
        // Bearer, as providers omit it.
        var type = "Bearer"
        switch object["token_type"] {
        case nil, .null?: break
        case .string(let raw)? where raw.lowercased() == "bearer": break
        case .string(let raw)? where raw.lowercased() == "dpop": type = "DPoP"
        case .string(let raw)?:
            return .error(.malformedResponse("token_type \"\(raw)\" is not supported: expected Bearer or DPoP"))
        default:
            return .error(.malformedResponse("token_type is not a string"))
        }
        if object["expires_in"] != nil && object.lenientInt("expires_in") == nil {
            return .error(.malformedResponse("expires_in is not a number"))
        }
        let refresh = object.string("refresh_token").flatMap { $0.isEmpty ? nil : $0 }
        if let refresh, !TokenCharacters.areVSCHAR(refresh) {
            return .error(.malformedResponse("refresh_token has characters outside RFC 6749's VSCHAR (%x20-7E)"))
        }
        let idToken = object.string("id_token").flatMap { $0.isEmpty ? nil : $0 }
        return .token(
            TokenResponse(
                accessToken: access, tokenType: type, refreshToken: refresh,
                expiresIn: object.lenientInt("expires_in"), scope: object.string("scope"),
                idToken: idToken, raw: object,
                serverDate: ClockSkew.authenticatedServerDate(response)))
    }

    /// The `Token` value this response gives at `now`; `previous` supplies what a refresh may omit
    /// (the refresh token and the last verified ID token, never overwritten by absence).
    package func token(at now: Timestamp, previous: Token? = nil) -> Token {
        Token(
            accessToken: accessToken, tokenType: tokenType,
            refreshToken: refreshToken ?? previous?.refreshToken,
            // Clamped so a hostile expires_in cannot make an unprintable date: at most ten years, never negative.
            expiresAt: expiresIn.map { now.addingTimeInterval(Double(min(max($0, 0), 315_360_000))) },
            scope: scope ?? previous?.scope,
            idToken: idToken ?? previous?.idToken)
    }
}
