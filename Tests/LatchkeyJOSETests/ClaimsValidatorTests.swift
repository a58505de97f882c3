import FoundationEssentials
import Testing
@testable import LatchkeyJOSE

@Suite struct ClaimsValidatorTests {
    let now = Int64(1_700_000_000)
    let header = try! JOSEHeader(json: JSONObject([("alg", "RS256"), ("typ", "JWT")]))

    func claims(_ json: String) throws -> JWTClaims { try JWTClaims(payload: Array(json.utf8)) }
    func base(_ extra: String = "") -> String {
        #"{"iss":"https://idp.example","sub":"u1","aud":"client","exp":1700000600,"iat":1699999990\#(extra)}"#
    }
    let validator = ClaimsValidator(issuer: "https://idp.example", audience: "client")

    func error(_ v: ClaimsValidator, _ json: String, header h: JOSEHeader? = nil) throws -> JOSEError? {
        let c = try claims(json)
        do { try v.validate(c, header: h ?? header, now: now); return nil } catch { return error }
    }

    @Test func validClaimsPass() throws {
        #expect(try error(validator, base()) == nil)
        let c = try claims(base(#","nonce":"n","azp":"client","at_hash":"h","nbf":1699999000"#))
        #expect(c.issuer == "https://idp.example" && c.subject == "u1" && c.audience == ["client"])
        #expect(c.expiresAt == 1_700_000_600 && c.issuedAt == 1_699_999_990 && c.notBefore == 1_699_999_000)
        #expect(c.nonce == "n" && c.authorizedParty == "client" && c.accessTokenHash == "h")
    }

    @Test func issuerMustMatchExactly() throws {
        #expect(try error(validator, base().replacingIss("https://idp.example/")) ==
                .claimInvalid(claim: "iss", reason: #"expected "https://idp.example", got "https://idp.example/""#))
        guard case .claimInvalid(claim: "iss", _) = try error(validator, #"{"aud":"client","exp":1700000600}"#) else { Issue.record("missing iss passed"); return }
    }

    @Test func audienceMustContainTheClient() throws {
        #expect(try error(validator, base().replacingAud(#""other""#)) == .claimInvalid(claim: "aud", reason: #"expected "client", got ["other"]"#))
        #expect(try error(validator, base().replacingAud(#"["a","b"]"#)) == .claimInvalid(claim: "aud", reason: #"expected "client", got ["a", "b"]"#))
        guard case .claimInvalid(claim: "aud", _) = try error(validator, #"{"iss":"https://idp.example","exp":1700000600}"#) else { Issue.record("missing aud passed"); return }
        #expect(try error(validator, base().replacingAud(#"["client"]"#)) == nil)
    }

    @Test func azpRule() throws {
        // Several audiences: azp is required and must be us.
        guard case .claimInvalid(claim: "azp", _) = try error(validator, base().replacingAud(#"["client","api"]"#)) else { Issue.record("multi-aud without azp passed"); return }
        #expect(try error(validator, base(#","azp":"client""#).replacingAud(#"["client","api"]"#)) == nil)
        // azp present must equal the client even with one audience.
        #expect(try error(validator, base(#","azp":"api""#)) == .claimInvalid(claim: "azp", reason: #"expected "client", got "api""#))
    }

    @Test func expiryWithLeeway() throws {
        // exp 1700000600; now 1700000000.
        let late = Int64(1_700_000_661)
        let c = try claims(base())
        #expect(throws: JOSEError.expired(exp: 1_700_000_600, now: 1_700_000_661)) { try validator.validate(c, header: header, now: late) }
        #expect(throws: Never.self) { try validator.validate(c, header: header, now: Int64(1_700_000_660)) }
        var strict = validator
        strict.leeway = 0
        #expect(throws: JOSEError.expired(exp: 1_700_000_600, now: 1_700_000_601)) { try strict.validate(c, header: header, now: Int64(1_700_000_601)) }
        guard case .claimInvalid(claim: "exp", _) = try error(validator, #"{"iss":"https://idp.example","aud":"client"}"#) else { Issue.record("missing exp passed"); return }
    }

    @Test func notBeforeAndIssuedAt() throws {
        #expect(try error(validator, base(#","nbf":1700000061"#)) == .notYetValid(nbf: 1_700_000_061, now: 1_700_000_000))
        #expect(try error(validator, base(#","nbf":1700000060"#)) == nil)
        let future = #"{"iss":"https://idp.example","aud":"client","exp":1700000600,"iat":1700000061}"#
        guard case .claimInvalid(claim: "iat", _) = try error(validator, future) else { Issue.record("future iat passed"); return }
    }

    @Test func skipTimeChecks() throws {
        var v = validator
        v.skipTimeChecks = true
        #expect(try error(v, base(#","nbf":1800000000"#).replacingExp("1")) == nil)
    }

    @Test func requiredClaims() throws {
        var v = validator
        v.requiredClaims = ["sub", "nonce"]
        #expect(try error(v, base()) == .claimInvalid(claim: "nonce", reason: "required claim is missing"))
    }

    @Test func typeCheck() throws {
        var v = validator
        v.expectedType = "JWT"
        #expect(try error(v, base(), header: try JOSEHeader(json: JSONObject([("alg", "RS256"), ("typ", "application/jwt")]))) == nil)
        #expect(try error(v, base(), header: try JOSEHeader(json: JSONObject([("alg", "RS256"), ("typ", "at+jwt")]))) ==
                .claimInvalid(claim: "typ", reason: #"expected "JWT", got "at+jwt""#))
        guard case .claimInvalid(claim: "typ", _) = try error(v, base(), header: try JOSEHeader(json: JSONObject([("alg", "RS256")]))) else {
            Issue.record("missing typ passed"); return
        }
    }

    @Test func claimTypesAreChecked() {
        for bad in [#"{"exp":"soon"}"#, #"{"iss":1}"#, #"{"aud":[1]}"#, #"{"aud":{}}"#, #"{"nonce":null}"#] {
            #expect(throws: JOSEError.self) { try claims(bad) }
        }
        #expect(throws: JOSEError.self) { try claims("[]") }
        #expect(throws: JOSEError.self) { try claims(#"{"exp":1,"exp":2}"#) }
        #expect((try? claims(#"{"exp":1700000000.9}"#))?.expiresAt == 1_700_000_000)
    }
}

private extension String {
    func replacingIss(_ v: String) -> String { replacingMember("iss", with: "\"\(v)\"") }
    func replacingAud(_ v: String) -> String { replacingMember("aud", with: v) }
    func replacingExp(_ v: String) -> String { replacingMember("exp", with: v) }
    /// Rebuilds the object with one member's value replaced (test JSON is flat and simple).
    func replacingMember(_ name: String, with raw: String) -> String {
        let obj = try! JSONParser().parseObject(Array(self.utf8))
        var parts: [String] = []
        for m in obj {
            var key = ""
            JSONValue.quote(m.key, into: &key)
            parts.append(key + ":" + (m.key == name ? raw : m.value.jsonText))
        }
        return "{" + parts.joined(separator: ",") + "}"
    }
}
