import Testing

@testable import LatchkeyJOSE

@Suite struct JWSHeaderTests {
    func parseError(_ token: String) -> JOSEError? {
        do { _ = try JWS(compact: token); return nil } catch { return error }
    }

    @Test func acceptsAWellFormedToken() throws {
        let jws = try JWS(compact: unsignedToken(headerJSON: #"{"alg":"RS256","kid":"k1","typ":"JWT"}"#, payload: #"{"a":1}"#))
        #expect(jws.header.alg == "RS256")
        #expect(jws.header.kid == "k1")
        #expect(jws.header.typ == "JWT")
        #expect(jws.algorithm == .rs256)
        #expect(jws.payload == Array(#"{"a":1}"#.utf8))
        #expect(jws.signature == [0, 0, 0])
    }

    @Test(arguments: ["none", "None", "NONE"])
    func algNoneRejected(_ alg: String) {
        #expect(parseError(unsignedToken(headerJSON: #"{"alg":"\#(alg)"}"#)) == .unsupportedAlgorithm(alg))
    }

    @Test func algRequiredAndAString() {
        guard case .malformed = parseError(unsignedToken(headerJSON: #"{"kid":"a"}"#)) else { Issue.record("missing alg accepted"); return }
        guard case .malformed = parseError(unsignedToken(headerJSON: #"{"alg":256}"#)) else { Issue.record("numeric alg accepted"); return }
    }

    @Test func critRejected() {
        #expect(parseError(unsignedToken(headerJSON: #"{"alg":"ES256","crit":["exp"],"exp":1}"#)) == .unsupportedCriticalHeader(["exp"]))
        guard case .malformed = parseError(unsignedToken(headerJSON: #"{"alg":"ES256","crit":[]}"#)) else {
            Issue.record("empty crit accepted"); return
        }
    }

    @Test func b64FalseRejected() {
        // RFC 7797 unencoded payload, with and without the required crit listing.
        #expect(
            parseError(unsignedToken(headerJSON: #"{"alg":"ES256","b64":false,"crit":["b64"]}"#)) == .unsupportedCriticalHeader(["b64"]))
        #expect(parseError(unsignedToken(headerJSON: #"{"alg":"ES256","b64":false}"#)) == .unsupportedCriticalHeader(["b64"]))
    }

    @Test func segmentCountAndEmptyParts() {
        let h = Base64URL.encode(Array(#"{"alg":"ES256"}"#.utf8))
        for bad in ["", "\(h)", "\(h).e30", "\(h).e30.AAAA.AAAA", "\(h).e30.AAAA.AAAA.AAAA", "\(h).e30.", ".e30.AAAA", "\(h)..", "..."] {
            guard case .malformed = parseError(bad) else { Issue.record("accepted \(bad)"); continue }
        }
        // An empty payload is allowed (Wycheproof emptyPayload is valid).
        #expect(parseError("\(h)..AAAA") == nil)
    }

    @Test func headerMustBeAStrictJSONObject() {
        for header in [
            #"["alg"]"#, #"{"alg":"ES256","alg":"RS256"}"#, #"{"alg":"ES256",}"#, "not json", #"{"alg":"ES256","kid":7}"#,
            #"{"alg":"ES256","typ":true}"#
        ] {
            guard case .malformed = parseError(unsignedToken(headerJSON: header)) else {
                Issue.record("accepted header \(header)"); continue
            }
        }
    }

    @Test func sizeLimit() {
        let big = String(repeating: "A", count: JWS.maxSize)
        guard case .malformed = parseError(unsignedToken(headerJSON: #"{"alg":"ES256"}"#, signature: big)) else {
            Issue.record("oversized token accepted"); return
        }
    }

    @Test func unsupportedNamesParseButDoNotVerify() throws {
        for alg in ["HS256", "EdDSA", "ES256K", "RS1"] {
            let jws = try JWS(compact: unsignedToken(headerJSON: #"{"alg":"\#(alg)"}"#))
            #expect(jws.algorithm == nil)
            #expect(throws: JOSEError.unsupportedAlgorithm(alg)) {
                _ = try JWSVerifier.verify(jws, keys: JWKSet(keys: []), allowedAlgorithms: allAlgorithms)
            }
        }
    }

    @Test func embeddedKeySourcesAreIgnored() throws {
        let trusted = try ES256Signer(), attacker = try ES256Signer()
        let keys = JWKSet(keys: [try trusted.jwk([("kid", "k")])])
        // Signed by the attacker, who embeds their own key and points jku/x5u at their server.
        var h = JSONObject([
            ("alg", "ES256"), ("kid", "k"), ("jwk", .object(attacker.jwkJSON([("kid", "k")]))),
            ("jku", "https://attacker.example/jwks"), ("x5u", "https://attacker.example/cert")
        ])
        let forged = try attacker.sign(header: h, payload: Array("{}".utf8))
        #expect(verifyCompact(forged, keys: keys) == .invalidSignature)
        // The same members on a token the trusted key signed do not get in the way either.
        h["jwk"] = .object(trusted.jwkJSON())
        #expect(verifyCompact(try trusted.sign(header: h, payload: Array("{}".utf8)), keys: keys) == nil)
    }
}
