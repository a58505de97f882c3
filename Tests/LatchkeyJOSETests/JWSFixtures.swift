import LatchkeyCrypto
@testable import LatchkeyJOSE

/// Builds ES256 tokens with fresh P-256 keys so tests control every header member.
struct ES256Signer {
    let key: P256PrivateKey

    init() throws {
        key = try P256PrivateKey(random: try SecureRandom())
    }

    /// The public JWK, with optional extra members.
    func jwkJSON(_ extra: [(String, JSONValue)] = []) -> JSONObject {
        var o = JSONObject([("kty", "EC"), ("crv", "P-256"),
                            ("x", .string(Base64URL.encode(key.publicKey.x))), ("y", .string(Base64URL.encode(key.publicKey.y)))])
        for (k, v) in extra { o[k] = v }
        return o
    }

    func jwk(_ extra: [(String, JSONValue)] = []) throws -> JWK { try JWK(json: jwkJSON(extra)) }

    /// Signs `header`.`payload` and returns the compact form.
    func sign(header: JSONObject, payload: [UInt8]) throws -> String {
        let input = Base64URL.encode(Array(JSONValue.object(header).jsonText.utf8)) + "." + Base64URL.encode(payload)
        let sig = try key.signature(for: Array(input.utf8))
        return input + "." + Base64URL.encode(sig)
    }

    func sign(kid: String?, claims: JSONObject = JSONObject([("sub", "x")])) throws -> String {
        var h = JSONObject([("alg", "ES256")])
        if let kid { h["kid"] = .string(kid) }
        return try sign(header: h, payload: Array(JSONValue.object(claims).jsonText.utf8))
    }
}

/// A compact token with an arbitrary header and a dummy signature, for header-rule tests.
func unsignedToken(headerJSON: String, payload: String = "{}", signature: String = "AAAA") -> String {
    Base64URL.encode(Array(headerJSON.utf8)) + "." + Base64URL.encode(Array(payload.utf8)) + "." + signature
}
