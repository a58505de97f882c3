import LatchkeyHTTP
import FoundationEssentials
import LatchkeyCrypto
import LatchkeyJOSE

/// Signs ES256 test tokens with a fresh P-256 key and publishes the matching JWKS.
struct TokenMinter {
    let key: P256PrivateKey
    let kid: String

    init(kid: String = "test-key") throws {
        key = try P256PrivateKey(random: try SecureRandom())
        self.kid = kid
    }

    /// `{"keys":[…]}` with this minter's public key.
    var jwksJSON: String {
        let jwk = JSONObject([("kty", "EC"), ("crv", "P-256"), ("kid", .string(kid)), ("alg", "ES256"), ("use", "sig"),
                              ("x", .string(Base64URL.encode(key.publicKey.x))), ("y", .string(Base64URL.encode(key.publicKey.y)))])
        return JSONValue.object(JSONObject([("keys", .array([.object(jwk)]))])).jsonText
    }

    /// A compact JWS over `claims`.
    func mint(_ claims: JSONObject, alg: String = "ES256") throws -> String {
        let header = JSONObject([("alg", .string(alg)), ("kid", .string(kid)), ("typ", "JWT")])
        let input = Base64URL.encode(Array(JSONValue.object(header).jsonText.utf8)) + "."
            + Base64URL.encode(Array(JSONValue.object(claims).jsonText.utf8))
        let signature = try key.signature(for: Array(input.utf8))
        return input + "." + Base64URL.encode(signature)
    }

    /// Standard claims around `now` (seconds since the epoch).
    static func claims(issuer: String = "https://idp.example", audience: String = "cli", now: Int64,
                       lifetime: Int64 = 600) -> JSONObject {
        JSONObject([("iss", .string(issuer)), ("sub", "user-1"), ("aud", .string(audience)),
                    ("iat", .integer(now)), ("exp", .integer(now + lifetime))])
    }

    static var now: Int64 { Int64(Timestamp.now().timeIntervalSince1970) }
}
