import LatchkeyJOSE

/// The client-side checks of a token response when DPoP is in play (RFC 9449 §5, §6.1).
enum TokenBindingCheck {
    /// Checks `response` given the key whose proof went with the request (nil: none was sent).
    /// `requireBinding` refuses a `Bearer` answer to a proof (`DPoPMode.always`, or a bound
    /// session refreshing); otherwise it is accepted and the session is simply not bound.
    static func check(_ response: TokenResponse, proofKey: DPoPKey?, requireBinding: Bool) throws(LatchkeyError) {
        let bound = response.tokenType == "DPoP"
        guard let proofKey else {
            if bound { throw .tokenBinding(.unrequestedDPoP) }
            return
        }
        guard bound else {
            if requireBinding { throw .tokenBinding(.bearerAnswer) }
            return
        }
        if let jkt = confirmationThumbprint(response.accessToken), jkt != proofKey.thumbprint {
            throw .tokenBinding(.thumbprintMismatch(expected: proofKey.thumbprint, got: jkt))
        }
    }

    /// `cnf.jkt` of a JWT access token; nil for opaque tokens or a JWT without it.
    static func confirmationThumbprint(_ accessToken: String) -> String? {
        confirmation(accessToken)?["jkt"]?.stringValue
    }

    /// RFC 8705 §3.1: a JWT access token carrying `cnf.x5t#S256` must carry the base64url SHA-256
    /// thumbprint of the certificate presented (`certificateThumbprint`, raw 32 bytes). An opaque
    /// token, or a JWT without the member, cannot be checked and passes.
    static func checkCertificate(_ response: TokenResponse, certificateThumbprint: [UInt8]) throws(LatchkeyError) {
        guard let x5t = Self.certificateThumbprint(response.accessToken) else { return }
        let expected = Base64URL.encode(certificateThumbprint)
        if x5t != expected { throw .tokenBinding(.certificateThumbprintMismatch(expected: expected, got: x5t)) }
    }

    /// `cnf.x5t#S256` of a JWT access token; nil for opaque tokens or a JWT without it.
    static func certificateThumbprint(_ accessToken: String) -> String? {
        confirmation(accessToken)?["x5t#S256"]?.stringValue
    }

    /// The `cnf` object (RFC 7800) of a JWT access token's payload, unverified: the client only
    /// compares it with what it holds itself. Nil for opaque tokens.
    static func confirmation(_ accessToken: String) -> JSONObject? {
        let parts = accessToken.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 3, let payload = try? Base64URL.decode(parts[1]),
            let claims = try? JSONParser().parseObject(payload),
            case .object(let cnf)? = claims["cnf"]
        else { return nil }
        return cnf
    }
}
