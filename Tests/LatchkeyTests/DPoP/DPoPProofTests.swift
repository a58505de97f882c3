import LatchkeyCrypto
import LatchkeyHTTP
import LatchkeyJOSE
import LatchkeyTesting
import Testing

@testable import Latchkey

/// Proofs as RFC 9449 §4 defines them, each checked with the project's own verifier.
@Suite struct DPoPProofTests {
    static let now = Timestamp(timeIntervalSince1970: 1_800_000_000)

    /// Parses and verifies `proof` against the `jwk` it embeds; returns the header and claims.
    static func verified(_ proof: String) throws -> (header: JSONObject, claims: JSONObject, jwk: JWK) {
        let jws = try JWS(compact: proof)
        let jwkJSON = try #require(jws.header.json["jwk"]?.objectValue)
        let jwk = try JWK(json: jwkJSON)
        _ = try JWSVerifier.verify(jws, keys: JWKSet(keys: [jwk]), allowedAlgorithms: [.es256])
        return (jws.header.json, try JSONParser().parseObject(jws.payload), jwk)
    }

    @Test func aProofHasTheHeaderAndClaimsOfSection4AndVerifies() throws {
        let key = try DPoPKey(random: CountingRandom(seed: 3))
        let url = try HTTPURL.parse("https://Server.Example.COM:443/token?x=1#frag")
        let proof = try key.proof(method: "POST", url: url, nonce: "n-1", at: Self.now, random: CountingRandom(seed: 9))
        let (header, claims, jwk) = try Self.verified(proof)
        #expect(header["typ"] == .string("dpop+jwt") && header["alg"] == .string("ES256"))
        #expect(header.keys == ["alg", "typ", "jwk"])
        // The public key only: no private member travels.
        let embedded = try #require(header["jwk"]?.objectValue)
        #expect(Set(embedded.keys) == ["kty", "crv", "x", "y"])
        #expect(jwk.thumbprint() == key.thumbprint)
        #expect(claims["htm"] == .string("POST"))
        #expect(claims["htu"] == .string("https://server.example.com/token"))
        #expect(claims["iat"] == .integer(1_800_000_000))
        #expect(claims["nonce"] == .string("n-1"))
        #expect(claims["ath"] == nil)
        // 128 random bits from the injected source.
        let jti = try #require(claims["jti"]?.stringValue)
        #expect(try Base64URL.decode(jti) == CountingRandom(seed: 9).bytes(16))
    }

    @Test func aResourceProofCarriesAthAndEveryProofHasItsOwnJti() throws {
        let key = try DPoPKey(random: CountingRandom())
        let url = try HTTPURL.parse("https://api.example/r")
        let random = SequenceRandom()
        let a = try Self.verified(try key.proof(method: "GET", url: url, accessToken: "tok", at: Self.now, random: random)).claims
        let b = try Self.verified(try key.proof(method: "GET", url: url, accessToken: "tok", at: Self.now, random: random)).claims
        #expect(a["ath"] == .string(DPoPTarget.accessTokenHash("tok")))
        #expect(a["jti"] != b["jti"])
        #expect(a["nonce"] == nil)
    }

    @Test func athIsRFC9449sExample() {
        // RFC 9449 §7.1: this access token has this ath.
        #expect(DPoPTarget.accessTokenHash("Kz~8mXK1EalYznwH-LC-1fBAo.4Ljp~zsPE_NeO.gxU") == "fUHyO2r2Z3DZ53EsNrWBb0xWXoaNy59IiKCAqksmQEo")
    }

    @Test func theThumbprintIsRFC9449sExample() throws {
        // RFC 9449 §4.1's proof key, whose thumbprint §6.1 puts in cnf.jkt.
        let jwk = try JWK(
            json: try JSONParser().parseObject(
                Array(
                    #"{"kty":"EC","x":"l8tFrhx-34tV3hRICRDY9zCkDlpBhF42UQUfWVAWBFs","y":"9VE4jf_Ok_o64zbTTlcuNJajHmt6v9TDVrU0CdvGRDA","crv":"P-256"}"#
                        .utf8)))
        #expect(jwk.thumbprint() == "0ZcOCORZNYy-DWpqq30jZyJGHTN0d2HglBV3uiguA4I")
    }

    @Test(arguments: [
        ("https://server.example.com/token", "https://server.example.com/token"),
        ("HTTPS://SERVER.example.com:443/token?a=b#c", "https://server.example.com/token"),
        ("https://server.example.com", "https://server.example.com/"),
        ("https://server.example.com:8443/a/./b/../c", "https://server.example.com:8443/a/c"),
        ("https://server.example.com/%7euser/%2fx%2F", "https://server.example.com/~user/%2Fx%2F"),
        ("http://127.0.0.1:80/cb?x", "http://127.0.0.1/cb"),
        ("https://server.example.com/a/..", "https://server.example.com/")
    ])
    func htuIsNormalisedWithoutQueryOrFragment(_ given: String, _ expected: String) throws {
        #expect(DPoPTarget.htu(try HTTPURL.parse(given)) == expected)
    }

    @Test func theKeyRoundTripsThroughItsScalar() throws {
        let key = try DPoPKey(random: CountingRandom(seed: 1))
        let again = try DPoPKey(rawScalar: key.rawScalar, random: CountingRandom())
        #expect(again.thumbprint == key.thumbprint)
        #expect(key.rawScalar.count == 32)
        // Two sign-ins make two keys.
        #expect(try DPoPKey(random: CountingRandom(seed: 2)).thumbprint != key.thumbprint)
    }

    @Test func aProofFromTheStoredSessionNeedsABoundSession() throws {
        let key = try DPoPKey(random: CountingRandom())
        var session = StoredSession(
            profile: "p", issuer: "https://idp.example", clientID: "c",
            token: Token(accessToken: "at", tokenType: "DPoP"), metadata: ProviderMetadata(issuer: "https://idp.example"),
            createdAt: Self.now, updatedAt: Self.now,
            dpop: DPoPBinding(key: key, nonces: ["https://api.example": "rn"]))
        let url = try HTTPURL.parse("https://api.example/x")
        let claims = try Self.verified(try session.dpopProof(method: "GET", url: url, at: Self.now, random: CountingRandom())).claims
        #expect(claims["ath"] == .string(DPoPTarget.accessTokenHash("at")) && claims["nonce"] == .string("rn"))
        // The resource server's own nonce wins over the authorization server's on the same origin.
        session.dpop?.nonces = ["https://api.example": "as-nonce", NonceHolder.resourceServer.key("https://api.example"): "rs-nonce"]
        let both = try Self.verified(try session.dpopProof(method: "GET", url: url, at: Self.now, random: CountingRandom())).claims
        #expect(both["nonce"] == .string("rs-nonce"))
        session.token.tokenType = "Bearer"
        #expect(throws: LatchkeyError.self) { try session.dpopProof(method: "GET", url: url, at: Self.now, random: CountingRandom()) }
    }
}

/// A random source that never repeats (a counter), for distinct `jti` values.
final class SequenceRandom: RandomSource, @unchecked Sendable {
    private var next: UInt8 = 0
    func bytes(_ count: Int) -> [UInt8] {
        (0..<count).map { _ in
            next &+= 1; return next
        }
    }
}
