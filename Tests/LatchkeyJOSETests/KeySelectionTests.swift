import Testing

@testable import LatchkeyJOSE

@Suite struct KeySelectionTests {
    @Test func verifiesWithTheKidKeyAndReturnsIt() throws {
        let a = try ES256Signer(), b = try ES256Signer()
        let keys = JWKSet(keys: [try a.jwk([("kid", "a")]), try b.jwk([("kid", "b")])])
        let jws = try JWS(compact: try b.sign(kid: "b"))
        let used = try JWSVerifier.verify(jws, keys: keys, allowedAlgorithms: [.es256])
        #expect(used.kid == "b")
    }

    @Test func unknownKidIsNoMatchingKeyWithoutFallback() throws {
        let a = try ES256Signer()
        // The only key would verify the signature, but the token names another kid.
        let keys = JWKSet(keys: [try a.jwk([("kid", "a")])])
        #expect(verifyCompact(try a.sign(kid: "rotated"), keys: keys) == .noMatchingKey(kid: "rotated"))
        // A key without kid is not a wildcard for a token with one.
        #expect(verifyCompact(try a.sign(kid: "a"), keys: JWKSet(keys: [try a.jwk()])) == .noMatchingKey(kid: "a"))
    }

    @Test func withoutKidEveryFittingKeyIsTried() throws {
        let a = try ES256Signer(), b = try ES256Signer()
        let keys = JWKSet(keys: [try a.jwk([("kid", "a")]), try b.jwk([("kid", "b")])])
        let used = try JWSVerifier.verify(try JWS(compact: try b.sign(kid: nil)), keys: keys, allowedAlgorithms: [.es256])
        #expect(used.kid == "b")
        let stranger = try ES256Signer()
        #expect(verifyCompact(try stranger.sign(kid: nil), keys: keys) == .invalidSignature)
        #expect(verifyCompact(try stranger.sign(kid: nil), keys: JWKSet(keys: [])) == .noMatchingKey(kid: nil))
    }

    @Test func keyWithADifferentAlgIsNotUsed() throws {
        let a = try ES256Signer()
        let token = try a.sign(kid: "a")
        guard case .invalidKey = verifyCompact(token, keys: JWKSet(keys: [try a.jwk([("kid", "a"), ("alg", "ES384")])])) else {
            Issue.record("key with alg ES384 used for ES256"); return
        }
        #expect(verifyCompact(try a.sign(kid: nil), keys: JWKSet(keys: [try a.jwk([("alg", "RS256")])])) == .noMatchingKey(kid: nil))
        #expect(verifyCompact(token, keys: JWKSet(keys: [try a.jwk([("kid", "a"), ("alg", "ES256")])])) == nil)
    }

    @Test func useAndKeyOpsGateVerification() throws {
        let a = try ES256Signer()
        let token = try a.sign(kid: "a")
        for extra: [(String, JSONValue)] in [[("use", "enc")], [("key_ops", .array(["sign"]))], [("key_ops", .array(["encrypt"]))]] {
            let key = try a.jwk([("kid", "a")] + extra)
            #expect(!key.isEligibleForVerification)
            guard case .invalidKey = verifyCompact(token, keys: JWKSet(keys: [key])) else {
                Issue.record("ineligible key used: \(extra)"); continue
            }
        }
        #expect(
            verifyCompact(token, keys: JWKSet(keys: [try a.jwk([("kid", "a"), ("use", "sig"), ("key_ops", .array(["verify"]))])])) == nil)
    }

    @Test func algorithmAllowList() throws {
        let a = try ES256Signer()
        #expect(
            verifyCompact(try a.sign(kid: nil), keys: JWKSet(keys: [try a.jwk()]), allowed: [.rs256, .es384])
                == .algorithmNotAllowed("ES256"))
    }

    @Test func hmacWithThePublicKeyIsImpossible() throws {
        // The classic confusion attack: HS256 keyed with the public key's bytes. There is no HMAC path.
        let a = try ES256Signer()
        let token = unsignedToken(headerJSON: #"{"alg":"HS256","kid":"a"}"#, signature: Base64URL.encode([UInt8](repeating: 7, count: 32)))
        #expect(verifyCompact(token, keys: JWKSet(keys: [try a.jwk([("kid", "a")])])) == .unsupportedAlgorithm("HS256"))
    }

    @Test func wrongKeyTypeForAlgorithm() throws {
        let a = try ES256Signer()
        let rsToken = unsignedToken(
            headerJSON: #"{"alg":"RS256","kid":"a"}"#, signature: Base64URL.encode([UInt8](repeating: 1, count: 256)))
        guard case .invalidKey = verifyCompact(rsToken, keys: JWKSet(keys: [try a.jwk([("kid", "a")])])) else {
            Issue.record("EC key used for RS256"); return
        }
        let es384 = unsignedToken(headerJSON: #"{"alg":"ES384"}"#, signature: Base64URL.encode([UInt8](repeating: 1, count: 96)))
        #expect(verifyCompact(es384, keys: JWKSet(keys: [try a.jwk()])) == .noMatchingKey(kid: nil))
    }

    @Test func signatureLengthMustMatchTheCurve() throws {
        let a = try ES256Signer()
        let good = try a.sign(kid: nil)
        let parts = good.split(separator: ".")
        var sig = try Base64URL.decode(parts[2])
        sig.append(0)
        #expect(verifyCompact("\(parts[0]).\(parts[1]).\(Base64URL.encode(sig))", keys: JWKSet(keys: [try a.jwk()])) == .invalidSignature)
    }

    @Test func jwkSetSkipsBadKeysWithReasons() throws {
        let a = try ES256Signer()
        let good = JSONValue.object(a.jwkJSON([("kid", "good")])).jsonText
        var offCurve = a.jwkJSON([("kid", "bad-point")])
        offCurve["y"] = .string(Base64URL.encode([UInt8](repeating: 1, count: 32)))
        let doc =
            #"{"keys":[\#(good),{"kty":"oct","kid":"mac","k":"AAAA"},{"kty":"OKP","crv":"Ed25519","x":"AAAA","kid":"ed"},\#(JSONValue.object(offCurve).jsonText),{"kty":"EC","crv":"P-256","x":"AAAA","y":"AAAA","kid":"short"},{"kty":"RSA","n":"AQAB","e":"AQAB","kid":"tiny"},7]}"#
        let set = try JWKSet(data: Array(doc.utf8))
        #expect(set.keys.count == 1)
        #expect(set.key(withID: "good") != nil)
        #expect(set.key(withID: "mac") == nil)
        #expect(set.skipped.count == 6)
        #expect(set.skipped.contains { $0.contains("\"mac\"") && $0.contains("oct") })
        #expect(set.skipped.contains { $0.contains("\"tiny\"") })
        #expect(set.skipped.contains { $0.hasPrefix("key 6") })
    }

    @Test func malformedJWKSets() {
        for doc in ["", "[]", "{}", #"{"keys":{}}"#, #"{"keys":[] "#, #"{"keys":[],"keys":[]}"#] {
            guard case .malformed = (Result { () throws(JOSEError) in try JWKSet(data: Array(doc.utf8)) }).failureValue else {
                Issue.record("accepted \(doc)"); continue
            }
        }
    }

    @Test func privateMembersAreDropped() throws {
        let a = try ES256Signer()
        let key = try a.jwk([("d", "c2VjcmV0")])
        #expect(key.json["d"] == nil)
        #expect(key.json["x"] != nil)
    }
}

extension Result {
    var failureValue: Failure? { if case .failure(let e) = self { return e }; return nil }
}
