import LatchkeyHTTP
import FoundationEssentials
import LatchkeyCrypto
@testable import LatchkeyJOSE

/// Signs ES256 test tokens with a fresh P-256 key and publishes the matching JWKS.
struct TokenMinter {
    let key: P256PrivateKey
    let kid: String
    let signer: JWSSigner

    init(kid: String = "test-key") throws {
        key = try P256PrivateKey(random: try SecureRandom())
        self.kid = kid
        signer = try JWSSigner(key: .ec(key.key))
    }

    /// `{"keys":[…]}` with this minter's public key.
    var jwksJSON: String {
        var jwk = JWK(publicKey: signer.key.publicKey, keyID: kid).json
        jwk["alg"] = "ES256"
        jwk["use"] = "sig"
        return JSONValue.object(JSONObject([("keys", .array([.object(jwk)]))])).jsonText
    }

    /// A compact JWS over `claims`; `alg` other than ES256 forges the header (the signature stays ES256).
    func mint(_ claims: JSONObject, alg: String = "ES256") throws -> String {
        var header = signer.protectedHeader(type: "JWT", keyReference: .keyID(kid))
        header["alg"] = .string(alg)
        return try signer.sign(header: header, payload: Array(JSONValue.object(claims).jsonText.utf8))
    }

    /// Standard claims around `now` (seconds since the epoch).
    static func claims(issuer: String = "https://idp.example", audience: String = "cli", now: Int64,
                       lifetime: Int64 = 600) -> JSONObject {
        JSONObject([("iss", .string(issuer)), ("sub", "user-1"), ("aud", .string(audience)),
                    ("iat", .integer(now)), ("exp", .integer(now + lifetime))])
    }

    static var now: Int64 { Int64(Timestamp.now().timeIntervalSince1970) }
}
