import FoundationEssentials
import Testing

@testable import LatchkeyJOSE

/// Reading and type-checking JWT claims. The rules the claims are judged by (issuer, audience,
/// azp, exp/nbf/iat and the leeway) belong to the one verifier, `IDTokenVerifier` in Latchkey, and
/// are tested there and through `latchkey verify` with one table (Tests/Support/TimeClaimBoundaries.swift).
@Suite struct JWTClaimsTests {
    func claims(_ json: String) throws -> JWTClaims { try JWTClaims(payload: Array(json.utf8)) }

    @Test func registeredClaimsAreRead() throws {
        let c = try claims(
            #"{"iss":"https://idp.example","sub":"u1","aud":"client","exp":1700000600,"iat":1699999990,"nonce":"n","azp":"client","at_hash":"h","nbf":1699999000,"auth_time":1699999900}"#
        )
        #expect(c.issuer == "https://idp.example" && c.subject == "u1" && c.audience == ["client"])
        #expect(c.expiresAt == 1_700_000_600 && c.issuedAt == 1_699_999_990 && c.notBefore == 1_699_999_000)
        #expect(c.nonce == "n" && c.authorizedParty == "client" && c.accessTokenHash == "h" && c.authTime == 1_699_999_900)
        #expect(try claims(#"{"aud":["a","b"]}"#).audience == ["a", "b"])
        #expect(try claims("{}").audience == [])
    }

    @Test func claimTypesAreChecked() {
        for bad in [
            #"{"exp":"soon"}"#, #"{"iss":1}"#, #"{"aud":[1]}"#, #"{"aud":{}}"#, #"{"nonce":null}"#, #"{"nbf":true}"#,
            #"{"iat":[1]}"#, #"{"exp":1e300}"#, #"{"exp":-18446742974197923840}"#
        ] {
            #expect(throws: JOSEError.self, "\(bad)") { try claims(bad) }
        }
        #expect(throws: JOSEError.self) { try claims("[]") }
        #expect(throws: JOSEError.self) { try claims(#"{"exp":1,"exp":2}"#) }
        // Whole seconds here; the verifier judges the exact number (JSONValue keeps its text).
        let fractional = try? claims(#"{"exp":1700000000.9}"#)
        #expect(fractional?.expiresAt == 1_700_000_000)
        #expect(fractional?.json["exp"]?.doubleValue == 1_700_000_000.9)
    }
}
