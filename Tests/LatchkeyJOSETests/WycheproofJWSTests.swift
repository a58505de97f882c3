import Testing

@testable import LatchkeyJOSE

/// Wycheproof json_web_signature_test.json: every case for a supported algorithm must match the vector's
/// verdict; HMAC cases (no shared-secret path exists) are listed as skipped with that reason and must
/// still be rejected.
@Suite struct WycheproofJWSTests {
    @Test func everyCaseAgreesWithTheVector() throws {
        guard let root = TestVectors.load("wycheproof/json_web_signature_test.json") else { return }
        let groups = try #require(root["testGroups"]?.arrayValue)
        var tally = VectorTally()
        var total = 0
        for group in groups {
            let comment = group["comment"]?.stringValue ?? "?"
            let tests = try #require(group["tests"]?.arrayValue)
            // Groups without a public key are HMAC (symmetric) groups.
            let publicJWK = group["public"]?.objectValue
            for t in tests {
                total += 1
                let id = t["tcId"]?.int64Value ?? -1
                let valid = t["result"]?.stringValue == "valid"
                let category = "\(comment)/\(valid ? "valid" : "invalid")"
                guard let compact = t["jws"]?.stringValue else {
                    // JSON serialisation: only compact is accepted; rejecting agrees for invalid cases.
                    if valid { tally.skip(category, "JSON serialisation is not accepted (compact only)") } else { tally.agreed(category) }
                    continue
                }
                guard let publicJWK else {
                    // HMAC: rejected by construction; a "valid" verdict is skipped with the reason.
                    let err = verifyCompact(compact, keys: JWKSet(keys: []))
                    #expect(err != nil, "tc \(id): HMAC token must be rejected")
                    // Say where it was stopped: strict parsing (base64url, header) or the missing HS* path.
                    let stage = err == .unsupportedAlgorithm("HS256") ? "rejected as unsupported alg" : "rejected while parsing"
                    tally.skip(category, "HS* (symmetric) has no verification path; \(stage)")
                    continue
                }
                let keys: JWKSet
                do {
                    keys = JWKSet(keys: [try JWK(json: publicJWK)])
                } catch {
                    // Key refused by our key checks: the case must be invalid.
                    if valid { tally.disagree.append("tc \(id) \(comment): key refused: \(error)") } else { tally.agreed(category) }
                    continue
                }
                let err = verifyCompact(compact, keys: keys)
                if (err == nil) == valid {
                    tally.agreed(category)
                } else if valid, let keyAlg = publicJWK["alg"]?.stringValue,
                    let tokenAlg = try? JWS(compact: compact).header.alg, keyAlg != tokenAlg
                {
                    // RFC 7520 group: the vector's key says alg X but the token uses Y. Our policy refuses a
                    // key whose alg differs; prove the signature itself verifies with the key's alg removed.
                    var stripped = publicJWK
                    stripped["alg"] = nil
                    let again = verifyCompact(compact, keys: JWKSet(keys: [try JWK(json: stripped)]))
                    #expect(again == nil, "tc \(id): signature must verify once the key's alg is ignored")
                    tally.skip(
                        category,
                        "key alg \(keyAlg) differs from token alg \(tokenAlg): refused by policy (signature verified with key alg removed)")
                } else {
                    tally.disagree.append(
                        "tc \(id) \(comment) \(t["comment"]?.stringValue ?? ""): expected \(valid ? "valid" : "invalid"), got \(err.map { "\($0)" } ?? "valid")"
                    )
                }
            }
        }
        print(tally.report("Wycheproof JWS (\(total) cases)"))
        #expect(total == 401)
        #expect(tally.disagree.isEmpty, "\(tally.disagree)")
        #expect(tally.agree.values.reduce(0, +) > 340)
    }
}

/// Wycheproof json_web_key_test.json: key-set cases (bad keys, wrong use/alg/curve/kty, small or ROCA
/// RSA keys) against the token each case carries.
@Suite struct WycheproofJWKTests {
    @Test func everyCaseAgreesWithTheVector() throws {
        guard let root = TestVectors.load("wycheproof/json_web_key_test.json") else { return }
        let groups = try #require(root["testGroups"]?.arrayValue)
        var tally = VectorTally()
        var total = 0
        for group in groups {
            let comment = group["comment"]?.stringValue ?? "?"
            // The "public" set when given, else the private set (private members are ignored by JWK).
            let setJSON = group["public"] ?? group["private"]
            let setText = try #require(setJSON).jsonText
            let keys = try JWKSet(data: Array(setText.utf8))
            let symmetric = (setJSON?["keys"]?.arrayValue ?? []).contains { $0["kty"]?.stringValue == "oct" }
            for t in try #require(group["tests"]?.arrayValue) {
                total += 1
                let id = t["tcId"]?.int64Value ?? -1
                let valid = t["result"]?.stringValue == "valid"
                let category = "\(comment)/\(valid ? "valid" : "invalid")"
                let compact = try #require(t["jws"]?.stringValue)
                let err = verifyCompact(compact, keys: keys)
                if symmetric {
                    #expect(err != nil, "tc \(id): token needing a symmetric key must be rejected")
                    if valid {
                        tally.skip(category, "HS* (symmetric) has no verification path; token rejected")
                    } else {
                        tally.agreed(category)
                    }
                } else if (err == nil) == valid {
                    tally.agreed(category)
                } else {
                    tally.disagree.append(
                        "tc \(id) \(comment): expected \(valid ? "valid" : "invalid"), got \(err.map { "\($0)" } ?? "valid"); skipped keys: \(keys.skipped)"
                    )
                }
            }
        }
        print(tally.report("Wycheproof JWK (\(total) cases)"))
        #expect(total == 26)
        #expect(tally.disagree.isEmpty, "\(tally.disagree)")
    }
}
