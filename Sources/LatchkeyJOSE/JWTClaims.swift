/// The claims of a JWT (RFC 7519 §4.1, OIDC Core §2), read from a JWS payload. Registered claims are
/// type-checked here so a validator never meets an `exp` that is a string.
package struct JWTClaims: Sendable {
    /// The whole claims object.
    package let json: JSONObject
    /// `iss`.
    package let issuer: String?
    /// `sub`.
    package let subject: String?
    /// `aud`, normalised to a list (it may be a string or an array of strings).
    package let audience: [String]
    /// `exp`, seconds since the epoch (fractions dropped).
    package let expiresAt: Int64?
    /// `nbf`.
    package let notBefore: Int64?
    /// `iat`.
    package let issuedAt: Int64?
    /// `nonce` (OIDC).
    package let nonce: String?
    /// `azp` (OIDC authorized party).
    package let authorizedParty: String?
    /// `at_hash` (OIDC access-token hash).
    package let accessTokenHash: String?
    /// `auth_time` (OIDC): when the user authenticated, seconds since the epoch.
    package let authTime: Int64?

    /// Parses a payload that must be a JSON object with well-typed registered claims.
    package init(payload: [UInt8]) throws(JOSEError) {
        let obj: JSONObject
        do { obj = try JSONParser().parseObject(payload) } catch { throw .malformed("claims: \(error)") }
        try self.init(json: obj)
    }

    /// Type-checks a claims object.
    package init(json: JSONObject) throws(JOSEError) {
        func string(_ name: String) throws(JOSEError) -> String? {
            guard let v = json[name] else { return nil }
            guard let s = v.stringValue else { throw .claimInvalid(claim: name, reason: "expected a string") }
            return s
        }
        func date(_ name: String) throws(JOSEError) -> Int64? {
            guard let v = json[name] else { return nil }
            if let i = v.int64Value { return i }
            // NumericDate may have a fraction (RFC 7519 §2).
            if let d = v.doubleValue, d.isFinite, abs(d) < 9.2e18 { return Int64(d.rounded(.down)) }
            throw .claimInvalid(claim: name, reason: "expected a NumericDate")
        }
        self.json = json
        issuer = try string("iss")
        subject = try string("sub")
        nonce = try string("nonce")
        authorizedParty = try string("azp")
        accessTokenHash = try string("at_hash")
        expiresAt = try date("exp")
        notBefore = try date("nbf")
        issuedAt = try date("iat")
        authTime = try date("auth_time")
        switch json["aud"] {
        case nil: audience = []
        case .string(let s)?: audience = [s]
        case .array(let a)?:
            var list: [String] = []
            for v in a {
                guard let s = v.stringValue else { throw .claimInvalid(claim: "aud", reason: "array holds a non-string") }
                list.append(s)
            }
            audience = list
        default: throw .claimInvalid(claim: "aud", reason: "expected a string or an array of strings")
        }
    }
}
