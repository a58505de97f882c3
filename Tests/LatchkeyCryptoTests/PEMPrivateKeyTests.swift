import LatchkeyCrypto
import LatchkeyTestSupport
import Testing

/// SigningKey(pem:): the three encodings are read for RSA and EC, and every other input is refused
/// with a reason that says what was found.
@Suite struct PEMPrivateKeyTests {
    let random: SecureRandom

    init() throws { random = try SecureRandom() }

    func key(_ pem: String) throws -> SigningKey { try SigningKey(pem: pem, random: random) }

    func refusal(_ pem: String) -> PrivateKeyRefusal? {
        do {
            _ = try key(pem)
            return nil
        } catch {
            guard case .privateKeyRefused(let why) = error as? CryptoError else {
                Issue.record("not a refusal: \(error)")
                return nil
            }
            return why
        }
    }

    func rsaPublic(_ key: SigningKey) -> RSAPublicKey? { if case .rsa(let k) = key { return k.publicKey }; return nil }
    func ecPublic(_ key: SigningKey) -> ECPublicKey? { if case .ec(let k) = key { return k.publicKey }; return nil }

    @Test func rsaFromPKCS8AndPKCS1IsTheSameKey() throws {
        let a = try #require(rsaPublic(try key(PEMFixtures.rsa2048PKCS8)))
        let b = try #require(rsaPublic(try key(PEMFixtures.rsa2048PKCS1)))
        #expect(a == b)
        #expect(a.modulusBitCount == 2048 && a.exponent == [1, 0, 1])
        #expect(ecPublic(try key(PEMFixtures.rsa2048PKCS1)) == nil)
    }

    @Test func ecFromPKCS8AndSEC1IsTheSameKey() throws {
        let p8 = try #require(ecPublic(try key(PEMFixtures.p256PKCS8)))
        let sec1 = try #require(ecPublic(try key(PEMFixtures.p256SEC1)))
        // Without the optional public key, Q is computed from d.
        let bare = try #require(ecPublic(try key(PEMFixtures.p256SEC1NoPublicKey)))
        #expect(p8 == sec1 && sec1 == bare && p8.curve == .p256)
        let p384 = try #require(ecPublic(try key(PEMFixtures.p384PKCS8)))
        #expect(p384 == (try #require(ecPublic(try key(PEMFixtures.p384SEC1)))))
        #expect(p384.curve == .p384 && p384.x.count == 48)
    }

    @Test func publicKeyMatchesTheVariant() throws {
        guard case .ec(let pub) = try key(PEMFixtures.p256SEC1).publicKey else { Issue.record("not EC"); return }
        #expect(pub.curve == .p256)
        guard case .rsa = try key(PEMFixtures.rsa2048PKCS8).publicKey else { Issue.record("not RSA"); return }
    }

    @Test func secretBytesAndCRLFInputAreRead() throws {
        let crlf = PEMFixtures.p256SEC1.split(separator: "\n").joined(separator: "\r\n") + "\r\n"
        #expect(ecPublic(try key(crlf)) == ecPublic(try key(PEMFixtures.p256SEC1)))
        let secret = SecretBytes(Array(("\n  " + PEMFixtures.p384SEC1 + "\n\n").utf8))
        #expect(ecPublic(try SigningKey(pem: secret, random: random))?.curve == .p384)
    }

    @Test func encryptedKeysAreRefused() {
        #expect(refusal(PEMFixtures.rsa2048EncryptedPKCS8) == .encrypted(label: "ENCRYPTED PRIVATE KEY"))
        #expect(refusal(PEMFixtures.rsa2048EncryptedPKCS1) == .encrypted(label: "RSA PRIVATE KEY"))
    }

    @Test func otherCurvesAreRefused() {
        #expect(refusal(PEMFixtures.p521SEC1) == .unsupportedCurve("secp521r1"))
        #expect(refusal(PEMFixtures.p521PKCS8) == .unsupportedCurve("secp521r1"))
        #expect(refusal(PEMFixtures.secp256k1SEC1) == .unsupportedCurve("secp256k1"))
        #expect(refusal(PEMFixtures.secp256k1PKCS8) == .unsupportedCurve("secp256k1"))
    }

    @Test func shortRSAIsRefused() {
        let expected = PrivateKeyRefusal.rsaModulusSize(bits: 1024, minimum: 2048, maximum: 8192)
        #expect(refusal(PEMFixtures.rsa1024PKCS8) == expected)
        #expect(refusal(PEMFixtures.rsa1024PKCS1) == expected)
    }

    @Test func otherAlgorithmsAreRefusedByOID() {
        #expect(refusal(PEMFixtures.ed25519PKCS8) == .unsupportedAlgorithm(oid: "1.3.101.112"))
        #expect(refusal(PEMFixtures.rsaPSSPKCS8) == .unsupportedAlgorithm(oid: "1.2.840.113549.1.1.10"))
    }

    @Test func otherLabelsAreRefused() {
        #expect(refusal(PEMFixtures.p256PublicKey) == .unsupportedLabel("PUBLIC KEY"))
        #expect(refusal(relabel(PEMFixtures.p256SEC1, "EC PRIVATE KEY", "CERTIFICATE")) == .unsupportedLabel("CERTIFICATE"))
    }

    @Test func aLabelMustMatchItsStructure() {
        #expect(
            refusal(relabel(PEMFixtures.rsa2048PKCS1, "RSA PRIVATE KEY", "PRIVATE KEY"))
                == .formatMismatch(label: "PRIVATE KEY", found: .pkcs1))
        #expect(
            refusal(relabel(PEMFixtures.p256SEC1, "EC PRIVATE KEY", "RSA PRIVATE KEY"))
                == .formatMismatch(label: "RSA PRIVATE KEY", found: .sec1))
        #expect(
            refusal(relabel(PEMFixtures.rsa2048PKCS8, "PRIVATE KEY", "EC PRIVATE KEY"))
                == .formatMismatch(label: "EC PRIVATE KEY", found: .pkcs8))
    }

    @Test func anythingAroundTheBlockIsRefused() {
        #expect(refusal(PEMFixtures.p256SEC1 + "\ngarbage\n") == .trailingData(byteCount: 8))
        #expect(refusal(PEMFixtures.p256SEC1 + "\n" + PEMFixtures.p384SEC1) == .trailingData(byteCount: PEMFixtures.p384SEC1.utf8.count))
        #expect(refusal("Bag Attributes\n" + PEMFixtures.p256SEC1) == .leadingData(byteCount: 15))
        #expect(refusal("garbage") == .notPEM)
        #expect(refusal("") == .notPEM)
        // P-256 PKCS#8 DER is 138 bytes (no base64 padding): four more characters are 3 bytes after the structure.
        let padded = PEMFixtures.p256PKCS8.replacingLast("\n-----END", with: "AAAA\n-----END")
        #expect(refusal(padded) == .trailingData(byteCount: 3))
    }

    @Test func brokenArmourIsRefused() {
        #expect(refusal("-----BEGIN EC PRIVATE KEY-----\nAAAA\n") == .malformedPEM("no END line"))
        #expect(
            refusal(relabel(PEMFixtures.p256SEC1, "-----END EC PRIVATE KEY", "-----END PRIVATE KEY"))
                == .malformedPEM("END line does not match BEGIN EC PRIVATE KEY"))
        #expect(refusal("-----BEGIN EC PRIVATE KEY-----\n-----END EC PRIVATE KEY-----\n") == .malformedPEM("empty body"))
        #expect(
            refusal("-----BEGIN EC PRIVATE KEY-----\nMHcC*AQEE\n-----END EC PRIVATE KEY-----\n") == .malformedPEM("invalid base64 body"))
        #expect(
            refusal("-----BEGIN EC PRIVATE KEY-----\nComment: x\n\nMHcCAQEE\n-----END EC PRIVATE KEY-----\n")
                == .malformedPEM("header lines are not accepted"))
        // Valid base64 of something that is not a key structure.
        guard case .malformedDER = refusal("-----BEGIN PRIVATE KEY-----\nAAAA\n-----END PRIVATE KEY-----\n") else {
            Issue.record("zero bytes accepted as DER"); return
        }
    }

    @Test func inconsistentKeysAreRefused() {
        guard case .inconsistentKey = refusal(PEMFixtures.p256SEC1MismatchedPublicKey) else {
            Issue.record("SEC1 key with someone else's public point accepted"); return
        }
        guard case .inconsistentKey = refusal(PEMFixtures.rsa2048PKCS1WrongExponent) else {
            Issue.record("RSA key with a wrong d accepted"); return
        }
    }

    @Test func refusalsSayWhatWasFound() {
        let text = CryptoError.privateKeyRefused(.unsupportedCurve("secp521r1")).description
        #expect(text == "private key refused: unsupported curve secp521r1 (only P-256 and P-384)")
        #expect(
            "\(CryptoError.privateKeyRefused(.encrypted(label: "RSA PRIVATE KEY")))".hasSuffix(
                "the \"RSA PRIVATE KEY\" key is encrypted; decrypt it first"))
    }

    /// `text` with every `old` label line part replaced (test inputs are small).
    func relabel(_ text: String, _ old: String, _ new: String) -> String {
        text.split(separator: "\n", omittingEmptySubsequences: false).map { line -> String in
            let l = String(line)
            guard l.hasPrefix("-----") else { return l }
            return l.replacingAll(old, with: new)
        }.joined(separator: "\n")
    }
}

extension String {
    /// Replaces every occurrence of `old` (tests are built without Foundation's string helpers here).
    func replacingAll(_ old: String, with new: String) -> String {
        var out = "", rest = Substring(self)
        while let r = rest.firstRange(of: old) { out += rest[..<r.lowerBound] + new; rest = rest[r.upperBound...] }
        return out + rest
    }

    /// Replaces the last occurrence of `old`.
    func replacingLast(_ old: String, with new: String) -> String {
        guard let r = ranges(of: old).last else { return self }
        return String(self[..<r.lowerBound]) + new + String(self[r.upperBound...])
    }
}
