import Testing

@testable import LatchkeyJOSE

/// RFC 7520 ("JOSE Cookbook") jws/ and jwk/ examples. Every compact signature with an asymmetric key
/// must verify; HMAC, detached-content and unprotected-header examples are skipped with the reason.
@Suite struct CookbookTests {
    @Test func jwsExamples() throws {
        guard let files = TestVectors.files(in: "jose-cookbook/jws") else { return }
        #expect(files.count == 8)
        var tally = VectorTally()
        for file in files {
            guard let doc = TestVectors.load(file) else { continue }
            let name = String(file.split(separator: "/").last!)
            let title = doc["title"]?.stringValue ?? name
            let payloadB64 = Base64URL.encode(Array((doc["input"]?["payload"]?.stringValue ?? "").utf8))
            // One entry per signature: (key, signing block, alg).
            var entries: [(JSONValue, JSONValue, String)] = []
            if let keys = doc["input"]?["key"]?.arrayValue, let signings = doc["signing"]?.arrayValue,
                let algs = doc["input"]?["alg"]?.arrayValue
            {
                for i in 0..<min(keys.count, signings.count, algs.count) {
                    entries.append((keys[i], signings[i], algs[i].stringValue ?? ""))
                }
            } else if let key = doc["input"]?["key"], let signing = doc["signing"] {
                entries.append((key, signing, doc["input"]?["alg"]?.stringValue ?? ""))
            }
            #expect(!entries.isEmpty, "\(name): no signatures found")
            for (k, (key, signing, alg)) in entries.enumerated() {
                let category = "\(name)#\(k) \(alg)"
                if key["kty"]?.stringValue == "oct" {
                    tally.skip(category, "HMAC (\(alg)): no shared-secret path exists")
                    // And it really is refused, with or without the key offered.
                    if let compact = doc["output"]?["compact"]?.stringValue {
                        #expect(verifyCompact(compact, keys: JWKSet(keys: [])) == .unsupportedAlgorithm(alg))
                    }
                    continue
                }
                if title.lowercased().contains("detached") {
                    tally.skip(category, "detached content: compact with empty payload verifies a different input")
                    continue
                }
                guard let protectedB64 = signing["protected_b64u"]?.stringValue, let sig = signing["sig"]?.stringValue else {
                    tally.skip(category, "unprotected header only (JSON serialisation): compact needs a protected alg")
                    continue
                }
                let compact = doc["output"]?["compact"]?.stringValue ?? "\(protectedB64).\(payloadB64).\(sig)"
                let jwk = try JWK(json: try #require(key.objectValue))
                let err = verifyCompact(compact, keys: JWKSet(keys: [jwk]))
                if err == nil { tally.agreed(category) } else { tally.disagree.append("\(category): \(err!)") }
                // A one-bit change in the signature must fail.
                var broken = Array(compact.utf8)
                let i = broken.count - 5
                broken[i] = broken[i] == UInt8(ascii: "A") ? UInt8(ascii: "B") : UInt8(ascii: "A")
                #expect(verifyCompact(String(decoding: broken, as: UTF8.self), keys: JWKSet(keys: [jwk])) != nil, "\(category) tampered")
            }
        }
        print(tally.report("RFC 7520 jws/"))
        #expect(tally.disagree.isEmpty, "\(tally.disagree)")
        #expect(tally.agree.values.reduce(0, +) == 4)
    }

    @Test func jwkExamples() throws {
        guard let files = TestVectors.files(in: "jose-cookbook/jwk") else { return }
        #expect(files.count == 6)
        var tally = VectorTally()
        for file in files {
            guard let doc = TestVectors.load(file), let obj = doc.objectValue else { continue }
            let name = String(file.split(separator: "/").last!)
            let kty = obj["kty"]?.stringValue ?? ""
            if kty == "oct" {
                #expect(throws: JOSEError.self) { try JWK(json: obj) }
                tally.skip(name, "symmetric key: refused (no shared-secret path)")
                continue
            }
            do {
                let jwk = try JWK(json: obj)
                // Private members never survive into the kept JSON.
                #expect(jwk.json["d"] == nil && jwk.json["p"] == nil)
                #expect(jwk.thumbprint().count == 43)
                tally.agreed(name)
            } catch {
                tally.disagree.append("\(name): \(error)")
            }
        }
        print(tally.report("RFC 7520 jwk/"))
        #expect(tally.disagree.isEmpty, "\(tally.disagree)")
        #expect(tally.agree.values.reduce(0, +) == 4)
    }
}
