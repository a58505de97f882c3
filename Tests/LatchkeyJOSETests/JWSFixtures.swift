import LatchkeyCrypto

@testable import LatchkeyJOSE

/// Builds ES256 tokens with fresh P-256 keys through `JWSSigner`, so tests control every header member.
struct ES256Signer {
    let key: P256PrivateKey
    let signer: JWSSigner

    init() throws {
        key = try P256PrivateKey(random: try SecureRandom())
        signer = try JWSSigner(key: .ec(key.key))
    }

    /// The public JWK, with optional extra members.
    func jwkJSON(_ extra: [(String, JSONValue)] = []) -> JSONObject {
        var o = signer.publicJWK.json
        for (k, v) in extra { o[k] = v }
        return o
    }

    func jwk(_ extra: [(String, JSONValue)] = []) throws -> JWK { try JWK(json: jwkJSON(extra)) }

    /// Signs `header` (exactly as given, forged members included).`payload` and returns the compact form.
    func sign(header: JSONObject, payload: [UInt8]) throws -> String {
        try signer.sign(header: header, payload: payload)
    }

    func sign(kid: String?, claims: JSONObject = JSONObject([("sub", "x")])) throws -> String {
        try signer.sign(claims: claims, keyReference: kid.map { .keyID($0) } ?? .none)
    }
}

/// A compact token with an arbitrary header and a dummy signature, for header-rule tests.
func unsignedToken(headerJSON: String, payload: String = "{}", signature: String = "AAAA") -> String {
    Base64URL.encode(Array(headerJSON.utf8)) + "." + Base64URL.encode(Array(payload.utf8)) + "." + signature
}
