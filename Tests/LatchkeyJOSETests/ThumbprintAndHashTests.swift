import Testing

@testable import LatchkeyJOSE

@Suite struct ThumbprintAndHashTests {
    /// RFC 7638 §3.1 example key and thumbprint.
    @Test func rfc7638Example() throws {
        let n =
            "0vx7agoebGcQSuuPiLJXZptN9nndrQmbXEps2aiAFbWhM78LhWx4cbbfAAtVT86zwu1RK7aPFFxuhDR1L6tSoc_BJECPebWKRXjBZCiFV4n3oknjhMstn64tZ_2W-5JsGY4Hc5n9yBXArwl93lqt7_RN5w6Cf0h4QyQ5v-65YGjQR0_FDW2QvzqY368QQMicAtaSqzs8KJZgnYb9c7d0zgdAZHzu6qMQvRL5hajrn1n91CbOpbISD08qNLyrdkt-bFTWhAI4vMQFh6WeZu0fM4lFd2NcRwr3XPksINHaQ-G_xBniIqbw0Ls1jF44-csFCur-kEgU8awapJzKnqDKgw"
        let key = try JWK(json: JSONObject([("kty", "RSA"), ("n", .string(n)), ("e", "AQAB"), ("alg", "RS256"), ("kid", "2011-04-29")]))
        #expect(key.thumbprint() == "NzbLsXh8uDCcd-6MNwXF4W_7noWXFZAfHkxZsRGC9Xs")
        #expect(key.kid == "2011-04-29" && key.alg == "RS256" && key.kty == "RSA")
    }

    @Test func ecThumbprintIgnoresOptionalMembers() throws {
        let s = try ES256Signer()
        #expect(try s.jwk().thumbprint() == s.jwk([("kid", "x"), ("use", "sig"), ("alg", "ES256")]).thumbprint())
        #expect(try s.jwk().thumbprint() != ES256Signer().jwk().thumbprint())
    }

    /// OIDC Core Appendix A example: access token and its at_hash under RS256.
    @Test func atHashExample() {
        #expect(
            AccessTokenHash.compute(accessToken: "jHkWEdUXMU1BwAsC4vtUsZwnNvTIxEl0z9K3vx5KF0Y", algorithm: .rs256)
                == "77QmUPtjPfzWtF2AnpK9RQ")
        #expect(
            AccessTokenHash.matches("77QmUPtjPfzWtF2AnpK9RQ", accessToken: "jHkWEdUXMU1BwAsC4vtUsZwnNvTIxEl0z9K3vx5KF0Y", algorithm: .rs256)
        )
        #expect(
            !AccessTokenHash.matches(
                "77QmUPtjPfzWtF2AnpK9RA", accessToken: "jHkWEdUXMU1BwAsC4vtUsZwnNvTIxEl0z9K3vx5KF0Y", algorithm: .rs256))
        // SHA-384/512 algorithms give 24- and 32-byte halves.
        #expect(AccessTokenHash.compute(accessToken: "t", algorithm: .es384).count == 32)
        #expect(AccessTokenHash.compute(accessToken: "t", algorithm: .ps512).count == 43)
    }

    @Test func rocaFingerprint() {
        // n = 65537^k mod small primes is the fingerprint; an ordinary odd modulus fails the test.
        #expect(!ROCAFingerprint.matches(modulus: [UInt8](repeating: 0xC5, count: 256)))
    }
}
