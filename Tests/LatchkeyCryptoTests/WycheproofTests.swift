import Testing

@testable import LatchkeyCrypto

/// Wycheproof conformance: every "valid" case accepted, every "invalid" case rejected,
/// "acceptable" cases handled by the policy in `acceptablePolicy`.
///
/// Decisions for "acceptable" cases (the only flag present in these files is MissingNull):
/// - `MissingNull` (PKCS#1 v1.5 DigestInfo without the NULL parameter): REJECTED. RFC 8017 §9.2
///   encodes the NULL, every JWS signer emits it, and mbedTLS compares against that one encoding.
/// Any other acceptable flag fails the test until a decision is written here.
@Suite struct WycheproofTests {
    static func acceptablePolicy(_ flags: [String]) -> Bool? {
        if flags.contains("MissingNull") { return false }
        return nil
    }

    /// Checks one case's outcome against the expectation and tallies it.
    static func judge(
        _ accepted: Bool, result: String, flags: [String], tcId: Int, comment: String,
        tally: inout WycheproofTally
    ) {
        let expected: Bool
        switch result {
        case "valid": expected = true
        case "invalid": expected = false
        default:
            guard let decision = acceptablePolicy(flags) else {
                Issue.record("\(tally.file) tc \(tcId): no policy for acceptable flags \(flags)")
                tally.disagreements += 1
                return
            }
            expected = decision
        }
        if accepted != expected {
            tally.disagreements += 1
            Issue.record(
                "\(tally.file) tc \(tcId) (\(comment), \(flags)): expected \(result) → \(expected ? "accept" : "reject"), got \(accepted ? "accept" : "reject")"
            )
        } else if result == "valid" {
            tally.validAccepted += 1
        } else if result == "invalid" {
            tally.invalidRejected += 1
        } else {
            tally.acceptable += 1
        }
    }

    static func requireFiles(_ required: [String], among names: [String]) {
        for name in required where !names.contains(name) {
            Issue.record("required Wycheproof file \(name) is missing")
        }
    }

    /// Big-endian coordinate from Wycheproof's ASN.1-style hex (may carry a leading 00), as exactly `count` bytes.
    static func coordinate(_ hex: String, count: Int) -> [UInt8] {
        let bytes = Array(Hex.decode(hex).drop { $0 == 0 })
        if bytes.count > count { return bytes }  // let the key constructor reject it
        return [UInt8](repeating: 0, count: count - bytes.count) + bytes
    }

    static func curve(_ name: String) -> ECCurve? {
        switch name {
        case "secp256r1": return .p256
        case "secp384r1": return .p384
        case "secp521r1": return .p521
        default: return nil
        }
    }

    @Test func ecdsaP1363() throws {
        guard WycheproofVectors.available(for: "ecdsaP1363") else { return }
        let names = WycheproofVectors.fileNames().filter {
            $0.hasPrefix("ecdsa_secp256r1_sha") || $0.hasPrefix("ecdsa_secp384r1_sha") || $0.hasPrefix("ecdsa_secp521r1_sha")
        }.filter { $0.hasSuffix("_p1363_test.json") }
        Self.requireFiles(
            [
                "ecdsa_secp256r1_sha256_p1363_test.json", "ecdsa_secp384r1_sha384_p1363_test.json",
                "ecdsa_secp521r1_sha512_p1363_test.json"
            ], among: names)
        var total = 0
        for name in names {
            let file = try WycheproofVectors.load(WycheproofFile<ECDSAGroup>.self, from: name)
            var tally = WycheproofTally(file: name)
            for group in file.testGroups {
                guard let hash = HashAlgorithm(wycheproofName: group.sha) else {
                    tally.skip(group.tests.count, because: "hash \(group.sha) not offered"); continue
                }
                guard let curve = Self.curve(group.publicKey.curve) else {
                    tally.skip(group.tests.count, because: "curve \(group.publicKey.curve) not offered"); continue
                }
                let n = curve.coordinateByteCount
                let key = try? ECPublicKey(
                    curve: curve, x: Self.coordinate(group.publicKey.wx, count: n),
                    y: Self.coordinate(group.publicKey.wy, count: n))
                for test in group.tests {
                    let accepted = key?.isValidSignature(rawRS: Hex.decode(test.sig), for: Hex.decode(test.msg), hash: hash) ?? false
                    Self.judge(accepted, result: test.result, flags: test.flags, tcId: test.tcId, comment: test.comment, tally: &tally)
                }
            }
            tally.report()
            #expect(tally.disagreements == 0, "\(name)")
            #expect(tally.checked > 0, "\(name): nothing checked")
            total += tally.checked
        }
        print("wycheproof ECDSA P1363 total: \(total) cases in \(names.count) files")
    }

    @Test func rsaPKCS1v15() throws {
        guard WycheproofVectors.available(for: "rsaPKCS1v15") else { return }
        let names = WycheproofVectors.fileNames().filter { name in
            name.hasPrefix("rsa_signature_")
                && ["_sha256_test.json", "_sha384_test.json", "_sha512_test.json"].contains { name.hasSuffix($0) }
        }
        var required = [String]()
        for bits in [2048, 3072, 4096] { for sha in [256, 384, 512] { required.append("rsa_signature_\(bits)_sha\(sha)_test.json") } }
        Self.requireFiles(required, among: names)
        var total = 0
        for name in names {
            let file = try WycheproofVectors.load(WycheproofFile<RSAGroup>.self, from: name)
            var tally = WycheproofTally(file: name)
            for group in file.testGroups {
                guard let hash = HashAlgorithm(wycheproofName: group.sha) else {
                    tally.skip(group.tests.count, because: "hash \(group.sha) not offered"); continue
                }
                let key = try? RSAPublicKey(
                    modulus: Hex.decode(group.publicKey.modulus),
                    exponent: Hex.decode(group.publicKey.publicExponent))
                if key == nil { Issue.record("\(name): \(group.keySize)-bit key refused") }
                for test in group.tests {
                    let accepted = key?.isValidPKCS1v15Signature(Hex.decode(test.sig), for: Hex.decode(test.msg), hash: hash) ?? false
                    Self.judge(accepted, result: test.result, flags: test.flags, tcId: test.tcId, comment: test.comment, tally: &tally)
                }
            }
            tally.report()
            #expect(tally.disagreements == 0, "\(name)")
            #expect(tally.checked > 0, "\(name): nothing checked")
            total += tally.checked
        }
        print("wycheproof RSA PKCS#1 v1.5 total: \(total) cases in \(names.count) files")
    }

    /// Every RSA-PSS file is read; groups outside the JWS PS* shape (MGF1 with the same hash,
    /// salt length = hash length, SHA-256/384/512) are skipped and counted.
    @Test func rsaPSS() throws {
        guard WycheproofVectors.available(for: "rsaPSS") else { return }
        let names = WycheproofVectors.fileNames().filter { $0.hasPrefix("rsa_pss_") }
        Self.requireFiles(
            [
                "rsa_pss_2048_sha256_mgf1_32_test.json", "rsa_pss_2048_sha384_mgf1_48_test.json",
                "rsa_pss_4096_sha512_mgf1_64_test.json"
            ], among: names)
        var total = 0
        var shapes = Set<HashAlgorithm>()
        for name in names {
            let file = try WycheproofVectors.load(WycheproofFile<RSAGroup>.self, from: name)
            var tally = WycheproofTally(file: name)
            for group in file.testGroups {
                guard let hash = HashAlgorithm(wycheproofName: group.sha) else {
                    tally.skip(group.tests.count, because: "hash \(group.sha) not offered"); continue
                }
                guard group.mgf == "MGF1", group.mgfSha == group.sha else {
                    tally.skip(group.tests.count, because: "MGF \(group.mgf ?? "?") \(group.mgfSha ?? "?") differs from the message hash");
                    continue
                }
                guard group.sLen == hash.byteCount else {
                    tally.skip(group.tests.count, because: "salt length \(group.sLen ?? -1) ≠ hash length"); continue
                }
                guard group.keySize >= 2048 else {
                    tally.skip(group.tests.count, because: "key below 2048 bits"); continue
                }
                shapes.insert(hash)
                let key = try? RSAPublicKey(
                    modulus: Hex.decode(group.publicKey.modulus),
                    exponent: Hex.decode(group.publicKey.publicExponent))
                if key == nil { Issue.record("\(name): \(group.keySize)-bit key refused") }
                for test in group.tests {
                    let accepted = key?.isValidPSSSignature(Hex.decode(test.sig), for: Hex.decode(test.msg), hash: hash) ?? false
                    Self.judge(accepted, result: test.result, flags: test.flags, tcId: test.tcId, comment: test.comment, tally: &tally)
                }
            }
            tally.report()
            #expect(tally.disagreements == 0, "\(name)")
            total += tally.checked
        }
        #expect(shapes == [.sha256, .sha384, .sha512], "PS256/384/512 shapes all covered")
        print("wycheproof RSA-PSS total: \(total) cases checked in \(names.count) files")
    }

    /// AES-GCM: only 256-bit keys, 96-bit IVs and 128-bit tags are offered; other groups are
    /// skipped and counted. Valid cases must seal to the given ciphertext and tag and open back;
    /// invalid cases must fail to open.
    @Test func aesGCM() throws {
        guard WycheproofVectors.available(for: "aesGCM") else { return }
        let name = "aes_gcm_test.json"
        let file = try WycheproofVectors.load(WycheproofFile<AEADGroup>.self, from: name)
        var tally = WycheproofTally(file: name)
        for group in file.testGroups {
            guard group.keySize == 256 else { tally.skip(group.tests.count, because: "AES-\(group.keySize) not offered"); continue }
            guard group.ivSize == 96 else { tally.skip(group.tests.count, because: "\(group.ivSize)-bit IV not offered"); continue }
            guard group.tagSize == 128 else { tally.skip(group.tests.count, because: "\(group.tagSize)-bit tag not offered"); continue }
            for test in group.tests {
                let key = SecretBytes(Hex.decode(test.key))
                let iv = Hex.decode(test.iv), aad = Hex.decode(test.aad), msg = Hex.decode(test.msg)
                let ct = Hex.decode(test.ct), tag = Hex.decode(test.tag)
                let opened = try? AESGCM.open(ct, tag: tag, key: key, nonce: iv, authenticating: aad)
                var accepted = opened == msg
                if test.result == "valid" {
                    let sealed = try? AESGCM.seal(msg, key: key, nonce: iv, authenticating: aad)
                    accepted = accepted && sealed?.ciphertext == ct && sealed?.tag == tag
                }
                Self.judge(accepted, result: test.result, flags: test.flags, tcId: test.tcId, comment: test.comment, tally: &tally)
            }
        }
        tally.report()
        #expect(tally.disagreements == 0)
        #expect(tally.validAccepted > 0 && tally.invalidRejected > 0)
    }
}
