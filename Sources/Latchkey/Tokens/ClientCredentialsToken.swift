import LatchkeyHTTP

/// What is kept of a client-credentials answer (RFC 6749 §4.4.3), or of a JWT bearer one (RFC 7523
/// §2.1). A refresh token there "SHOULD NOT be included" and an ID token has no person to describe:
/// both are dropped if a server sends them anyway, so renewal always runs the grant again and no
/// unverified ID token is ever stored.
enum ClientCredentialsToken {
    static func token(from response: TokenResponse, at now: Timestamp) -> Token {
        var token = response.token(at: now)
        token.refreshToken = nil
        token.idToken = nil
        return token
    }
}
