import FoundationEssentials
import LatchkeyCrypto
import LatchkeyHTTP
import LatchkeyJOSE
import LatchkeyTesting

/// Signs ES256 test tokens with a fresh P-256 key and publishes the matching JWKS.
struct TokenMinter {
    let signing: TestSigningKey
    var kid: String { signing.kid }

    init(kid: String = "test-key") throws {
        signing = try TestSigningKey(kid: kid, random: try SecureRandom())
    }

    /// `{"keys":[…]}` with this minter's public key.
    var jwksJSON: String { TestSigningKey.jwks([signing]) }

    /// A compact JWS over `claims`; `alg` other than ES256 forges the header (the signature stays ES256).
    func mint(_ claims: JSONObject, alg: String = "ES256") throws -> String { try signing.sign(claims, alg: alg) }

    /// Standard claims around `now` (seconds since the epoch).
    static func claims(
        issuer: String = "https://idp.example", audience: String = "cli", now: Int64,
        lifetime: Int64 = 600
    ) -> JSONObject {
        JSONObject([
            ("iss", .string(issuer)), ("sub", "user-1"), ("aud", .string(audience)),
            ("iat", .integer(now)), ("exp", .integer(now + lifetime))
        ])
    }

    static var now: Int64 { Int64(Timestamp.now().timeIntervalSince1970) }
}
