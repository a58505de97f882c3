import LatchkeyHTTP
import FoundationEssentials
import LatchkeyCrypto
import LatchkeyJOSE
@testable import Latchkey

/// A fake OpenID provider's signing side: real ES256 keys, a JWKS document, and signed ID tokens.
struct TestIssuer: Sendable {
    static let issuer = "https://idp.example"
    static let clientID = "device-client"

    let key: P256PrivateKey
    let kid: String

    init(kid: String = "k1") throws {
        key = try P256PrivateKey(random: try SecureRandom())
        self.kid = kid
    }

    /// This key as a JWK object.
    var jwk: JSONValue {
        .object(JSONObject([("kty", "EC"), ("crv", "P-256"), ("kid", .string(kid)), ("use", "sig"), ("alg", "ES256"),
                            ("x", .string(Base64URL.encode(key.publicKey.x))), ("y", .string(Base64URL.encode(key.publicKey.y)))]))
    }

    /// A JWKS document with the given issuers' keys.
    static func jwks(_ issuers: [TestIssuer]) -> String {
        JSONValue.object(JSONObject([("keys", .array(issuers.map(\.jwk)))])).jsonText
    }

    /// Standard valid claims at `now`.
    static func claims(now: Timestamp, nonce: String? = nil, extra: [(String, JSONValue)] = []) -> JSONObject {
        let t = Int64(now.timeIntervalSince1970)
        var o = JSONObject([("iss", .string(issuer)), ("sub", "user-1"), ("aud", .string(clientID)),
                            ("exp", .integer(t + 600)), ("iat", .integer(t))])
        if let nonce { o["nonce"] = .string(nonce) }
        for (k, v) in extra { o[k] = v }
        return o
    }

    /// A compact ES256 JWS over `claims`; `alg`/`kid` can be overridden to forge bad headers.
    func sign(_ claims: JSONObject, alg: String = "ES256", kid: String? = nil) throws -> String {
        let header = JSONValue.object(JSONObject([("alg", .string(alg)), ("typ", "JWT"), ("kid", .string(kid ?? self.kid))]))
        let input = Base64URL.encode(Array(header.jsonText.utf8)) + "." + Base64URL.encode(Array(JSONValue.object(claims).jsonText.utf8))
        let signature = try key.signature(for: Array(input.utf8))
        return input + "." + Base64URL.encode(signature)
    }

    /// A static key set holding this key.
    func keySet() throws -> StaticKeySet {
        StaticKeySet(try JWKSet(data: Array(TestIssuer.jwks([self]).utf8)))
    }
}

/// Metadata as a typical provider advertises it.
func testMetadata(device: Bool = true, pkce: [String]? = nil) -> ProviderMetadata {
    var m = ProviderMetadata(issuer: TestIssuer.issuer)
    m.tokenEndpoint = "https://idp.example/token"
    m.authorizationEndpoint = "https://idp.example/authorize"
    if device { m.deviceAuthorizationEndpoint = "https://idp.example/device" }
    m.revocationEndpoint = "https://idp.example/revoke"
    m.jwksURI = "https://idp.example/jwks"
    m.idTokenSigningAlgValuesSupported = ["RS256", "ES256"]
    m.codeChallengeMethodsSupported = pkce
    return m
}

func testConfiguration(authMethod: ClientAuthMethod = .none, pkce: PKCEMode = .auto) -> ClientConfiguration {
    ClientConfiguration(issuer: TestIssuer.issuer, clientID: TestIssuer.clientID, authMethod: authMethod, pkce: pkce)
}
