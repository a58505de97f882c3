import FoundationEssentials
import LatchkeyCrypto
import LatchkeyHTTP
import LatchkeyTesting

@testable import Latchkey
@testable import LatchkeyJOSE

/// A fake OpenID provider's signing side: real ES256 keys, a JWKS document, and signed ID tokens.
struct TestIssuer: Sendable {
    static let issuer = "https://idp.example"
    static let clientID = "device-client"

    let signing: TestSigningKey
    var kid: String { signing.kid }
    var signer: JWSSigner { signing.signer }

    init(kid: String = "k1") throws {
        signing = try TestSigningKey(kid: kid, random: try SecureRandom())
    }

    /// This key as a JWK object.
    var jwk: JSONValue { .object(signing.jwk) }

    /// A JWKS document with the given issuers' keys.
    static func jwks(_ issuers: [TestIssuer]) -> String { TestSigningKey.jwks(issuers.map(\.signing)) }

    /// Standard valid claims at `now`.
    static func claims(now: Timestamp, nonce: String? = nil, extra: [(String, JSONValue)] = []) -> JSONObject {
        let t = Int64(now.timeIntervalSince1970)
        var o = JSONObject([
            ("iss", .string(issuer)), ("sub", "user-1"), ("aud", .string(clientID)),
            ("exp", .integer(t + 600)), ("iat", .integer(t))
        ])
        if let nonce { o["nonce"] = .string(nonce) }
        for (k, v) in extra { o[k] = v }
        return o
    }

    /// A compact ES256 JWS over `claims`; `alg`/`kid` can be overridden to forge bad headers.
    func sign(_ claims: JSONObject, alg: String = "ES256", kid: String? = nil) throws -> String {
        try signing.sign(claims, alg: alg, kid: kid)
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
