import LatchkeyCrypto
import LatchkeyTestSupport
import Testing

@testable import LatchkeyJOSE

/// JWSSigner: every algorithm round-trips through the project's own verifier, the RFC 7515 A.2
/// token comes out byte for byte, headers are in a fixed order, and misfitting algorithms are refused.
@Suite struct JWSSignerTests {
    let random: SecureRandom
    init() throws { random = try SecureRandom() }

    func key(_ pem: String) throws -> SigningKey { try SigningKey(pem: pem, random: random) }

    /// Verifies `token` with the signer's public key published under `kid` "k1".
    func verify(_ token: String, with signer: JWSSigner) throws -> JWS {
        let jws = try JWS(compact: token)
        _ = try JWSVerifier.verify(
            jws, keys: JWKSet(keys: [JWK(publicKey: signer.key.publicKey, keyID: "k1")]),
            allowedAlgorithms: [signer.algorithm])
        return jws
    }

    @Test(arguments: [
        (JWSAlgorithm.rs256, "rsa"), (.rs384, "rsa"), (.rs512, "rsa"), (.ps256, "rsa"), (.ps384, "rsa"),
        (.ps512, "rsa"), (.es256, "p256"), (.es384, "p384")
    ])
    func everyAlgorithmRoundTrips(algorithm: JWSAlgorithm, keyName: String) throws {
        let pem = ["rsa": PEMFixtures.rsa2048PKCS1, "p256": PEMFixtures.p256SEC1, "p384": PEMFixtures.p384PKCS8][keyName]!
        let signer = try JWSSigner(key: key(pem), algorithm: algorithm)
        let claims = JSONObject([("iss", "client"), ("iat", .integer(1_700_000_000))])
        let jws = try verify(try signer.sign(claims: claims, type: "JWT", keyReference: .keyID("k1")), with: signer)
        #expect(jws.algorithm == algorithm && jws.header.kid == "k1")
        #expect(jws.payload == Array(#"{"iss":"client","iat":1700000000}"#.utf8))
        // Another key of the same kind does not verify it.
        let otherKey: SigningKey =
            keyName == "rsa"
            ? try key(PEMFixtures.rfc7515AppendixA2)
            : .ec(try ECPrivateKey(curve: keyName == "p256" ? .p256 : .p384, random: random))
        let other = try JWSSigner(key: otherKey, algorithm: algorithm)
        #expect(throws: JOSEError.invalidSignature) {
            _ = try JWSVerifier.verify(
                jws, keys: JWKSet(keys: [JWK(publicKey: other.key.publicKey, keyID: "k1")]), allowedAlgorithms: [algorithm])
        }
    }

    /// RFC 7515 A.2.1: the header `{"alg":"RS256"}`, the payload with its CR LFs, and the one RS256 signature.
    @Test func rfc7515AppendixA2() throws {
        let signer = try JWSSigner(key: key(PEMFixtures.rfc7515AppendixA2))
        let payload = Array("{\"iss\":\"joe\",\r\n \"exp\":1300819380,\r\n \"http://example.com/is_root\":true}".utf8)
        let token = try signer.sign(payload: payload)
        #expect(
            token == "eyJhbGciOiJSUzI1NiJ9.eyJpc3MiOiJqb2UiLA0KICJleHAiOjEzMDA4MTkzODAsDQogImh0dHA6Ly9leGFtcGxlLmNvbS9pc19yb290Ijp0cnVlfQ."
                + "cC4hiUPoj9Eetdgtv3hF80EGrhuB__dzERat0XF9g2VtQgr9PJbu3XOiZj5RZmh7AAuHIm4Bh-0Qc_lF5YKt_O8W2Fp5jujGbds9uJdbF9CUAr7t1dnZcAcQjbKBYNX4BAynRFdiuB--f_nZLgrnbyTyWzO75vRK5h6xBArLIARNPvkSjtQBMHlb1L07Qe7K0GarZRmB_eSN9383LcOLn6_dO--xi12jzDwusC-eOkHWEsqtFZESc6BfI7noOPqvhJ1phCnvWh6IeYI2w9QOYEUipUTI8np6LbgGY9Fs98rqVt5AXLIhWkWywlVmtVrBp0igcN_IoypGlUPQGe77Rw"
        )
        // The exported public JWK is the RFC's key.
        #expect(
            signer.publicJWK.json["n"]?.stringValue
                == "ofgWCuLjybRlzo0tZWJjNiuSfb4p4fAkd_wWJcyQoTbji9k0l8W26mPddxHmfHQp-Vaw-4qPCJrcS2mJPMEzP1Pt0Bm4d4QlL-yRT-SFd2lZS-pCgNMsD1W_YpRPEwOWvG6b32690r2jZ47soMZo9wGzjb_7OMg0LOL-bSf63kpaSHSXndS5z5rexMdbBYUsLA9e-KXBdQOS-UTo7WTBEMa2R2CapHg665xsmtdVMTBQY4uDZlxvb3qCo5ZwKh9kG4LT6_I5IhlJH7aGhyxXFvUK-DWNmoudF8NAco9_h9iaGNj8q2ethFkMLs91kzk2PAcDTW9gb54h4FRWyuXpoQ"
        )
        #expect(signer.publicJWK.json["e"]?.stringValue == "AQAB")
    }

    @Test func headerMembersHaveAFixedOrder() throws {
        let ec = try JWSSigner(key: key(PEMFixtures.p256SEC1))
        let dpop = try JWS(compact: try ec.sign(payload: [], type: "dpop+jwt", keyReference: .publicJWK))
        let x = try #require(ec.publicJWK.json["x"]?.stringValue), y = try #require(ec.publicJWK.json["y"]?.stringValue)
        #expect(
            JSONValue.object(dpop.header.json).jsonText
                == #"{"alg":"ES256","typ":"dpop+jwt","jwk":{"kty":"EC","crv":"P-256","x":"\#(x)","y":"\#(y)"}}"#)
        let rsa = try JWSSigner(key: key(PEMFixtures.rsa2048PKCS8), algorithm: .ps256)
        #expect(
            JSONValue.object(rsa.protectedHeader(type: "JWT", keyReference: .keyID("k"))).jsonText
                == #"{"alg":"PS256","typ":"JWT","kid":"k"}"#)
        #expect(JSONValue.object(rsa.protectedHeader()).jsonText == #"{"alg":"PS256"}"#)
        let embedded = try #require(rsa.protectedHeader(keyReference: .publicJWK)["jwk"]?.objectValue)
        #expect(embedded.keys == ["kty", "n", "e"])
    }

    @Test func defaultAlgorithmFitsTheKey() throws {
        #expect(try JWSSigner(key: key(PEMFixtures.rsa2048PKCS8)).algorithm == .rs256)
        #expect(try JWSSigner(key: key(PEMFixtures.p256PKCS8)).algorithm == .es256)
        #expect(try JWSSigner(key: key(PEMFixtures.p384SEC1)).algorithm == .es384)
    }

    @Test func misfittingAlgorithmsAreRefused() throws {
        let rsa = try key(PEMFixtures.rsa2048PKCS8), p256 = try key(PEMFixtures.p256SEC1), p384 = try key(PEMFixtures.p384SEC1)
        #expect(throws: JOSEError.algorithmDoesNotFitKey(algorithm: "ES256", key: "RSA")) { _ = try JWSSigner(key: rsa, algorithm: .es256) }
        #expect(throws: JOSEError.algorithmDoesNotFitKey(algorithm: "RS256", key: "EC P-256")) {
            _ = try JWSSigner(key: p256, algorithm: .rs256)
        }
        #expect(throws: JOSEError.algorithmDoesNotFitKey(algorithm: "PS384", key: "EC P-384")) {
            _ = try JWSSigner(key: p384, algorithm: .ps384)
        }
        #expect(throws: JOSEError.algorithmDoesNotFitKey(algorithm: "ES384", key: "EC P-256")) {
            _ = try JWSSigner(key: p256, algorithm: .es384)
        }
        #expect(throws: JOSEError.algorithmDoesNotFitKey(algorithm: "ES512", key: "EC P-384")) {
            _ = try JWSSigner(key: p384, algorithm: .es512)
        }
    }

    @Test func publicJWKCarriesNoPrivateMemberAndRoundTrips() throws {
        for pem in [PEMFixtures.rsa2048PKCS8, PEMFixtures.p256PKCS8, PEMFixtures.p384PKCS8] {
            let jwk = try JWSSigner(key: key(pem)).publicJWK
            #expect(jwk.json["d"] == nil && jwk.json["p"] == nil)
            let parsed = try JWK(json: jwk.json)
            #expect(parsed == jwk && parsed.thumbprint() == jwk.thumbprint())
        }
        let withID = JWK(publicKey: try key(PEMFixtures.p256SEC1).publicKey, keyID: "k9")
        #expect(withID.kid == "k9" && withID.json["kid"]?.stringValue == "k9")
    }

    /// RFC 7638 §3.1, from a public key rather than a parsed JWK.
    @Test func rfc7638ThumbprintOfAnExportedKey() throws {
        let n = try Base64URL.decode(
            "0vx7agoebGcQSuuPiLJXZptN9nndrQmbXEps2aiAFbWhM78LhWx4cbbfAAtVT86zwu1RK7aPFFxuhDR1L6tSoc_BJECPebWKRXjBZCiFV4n3oknjhMstn64tZ_2W-5JsGY4Hc5n9yBXArwl93lqt7_RN5w6Cf0h4QyQ5v-65YGjQR0_FDW2QvzqY368QQMicAtaSqzs8KJZgnYb9c7d0zgdAZHzu6qMQvRL5hajrn1n91CbOpbISD08qNLyrdkt-bFTWhAI4vMQFh6WeZu0fM4lFd2NcRwr3XPksINHaQ-G_xBniIqbw0Ls1jF44-csFCur-kEgU8awapJzKnqDKgw"
        )
        let key = try RSAPublicKey(modulus: n, exponent: [1, 0, 1])
        #expect(JWK(publicKey: .rsa(key)).thumbprint() == "NzbLsXh8uDCcd-6MNwXF4W_7noWXFZAfHkxZsRGC9Xs")
    }
}
