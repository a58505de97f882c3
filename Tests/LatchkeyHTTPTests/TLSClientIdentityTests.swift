import CMbedTLS
import LatchkeyCrypto
import Testing

@testable import LatchkeyHTTP

/// Making a client identity: every accepted form, and every local problem refused with its own case
/// before anything is sent. The files come from openssl (make_client_certs.sh).
@Suite struct TLSClientIdentityTests {
    /// The shared identities; made off the cooperative pool (openssl runs for seconds the first time).
    private func pki() async throws -> ClientPKI? {
        guard TestEnvironment.require(["openssl"]) else { return nil }
        return try await ClientPKI.made()
    }

    @Test func acceptsRSAAndECKeysInEveryPEMForm() async throws {
        guard let pki = try await pki() else { return }
        let cases: [(String, String, TLSClientIdentity.KeyType, String)] = [
            ("rsa.pem", "rsa.key", .rsa(bits: 2048), "CN=latchkey rsa client, O=Latchkey Tests"),  // PKCS#8
            ("rsa.pem", "rsa-pkcs1.key", .rsa(bits: 2048), "CN=latchkey rsa client, O=Latchkey Tests"),  // PKCS#1
            ("ec.pem", "ec.key", .ec(.p256), "CN=latchkey ec client"),  // PKCS#8
            ("ec.pem", "ec-sec1.key", .ec(.p256), "CN=latchkey ec client"),  // SEC1
            ("p384.pem", "p384.key", .ec(.p384), "CN=latchkey p384 client")
        ]
        for (cert, key, type, subject) in cases {
            let identity = try pki.identity(cert, key)
            #expect(identity.keyType == type, "\(cert) + \(key)")
            #expect(identity.subject == subject)
            #expect(identity.certificateCount == 1)
        }
        #expect(try pki.identity("chain.pem", "rsa.key").certificateCount == 2)
    }

    @Test func thumbprintIsSHA256OfTheLeafDER() async throws {
        guard let pki = try await pki() else { return }
        for (cert, key) in [("rsa.pem", "rsa.key"), ("ec.pem", "ec.key"), ("chain.pem", "rsa.key")] {
            let out = pki.path(cert + ".sha256")
            // For chain.pem, `openssl x509` reads the first certificate: the leaf.
            let command = "openssl x509 -in '\(pki.path(cert))' -outform DER | sha256sum > '\(out)'"
            let status = try await offPool { try SpawnedProcess.run(["/bin/sh", "-c", command]) }
            #expect(status == 0)
            let expected = String(TestEnvironment.readFile(out).prefix(64))
            let thumbprint = try pki.identity(cert, key).certificateThumbprintSHA256
            #expect(thumbprint.count == 32)
            #expect(hex(thumbprint) == expected, "\(cert)")
        }
    }

    @Test func validityIsCheckedAtTheInjectedTime() async throws {
        guard let pki = try await pki() else { return }
        // expired.pem: 2020-01-01T00:00:00Z .. 2020-12-31T00:00:00Z
        let notBefore = Timestamp(timeIntervalSince1970: 1_577_836_800)
        let notAfter = Timestamp(timeIntervalSince1970: 1_609_372_800)
        let inside = try pki.identity("expired.pem", "rsa.key", at: Timestamp(timeIntervalSince1970: 1_590_969_600))
        #expect(inside.notBefore == notBefore)
        #expect(inside.notAfter == notAfter)
        #expect((try? pki.identity("expired.pem", "rsa.key", at: notBefore)) != nil)
        #expect((try? pki.identity("expired.pem", "rsa.key", at: notAfter)) != nil)
        #expect(
            identityError { try pki.identity("expired.pem", "rsa.key", at: notAfter.addingTimeInterval(1)) }
                == .expired(notAfter: notAfter))
        #expect(
            identityError { try pki.identity("expired.pem", "rsa.key", at: notBefore.addingTimeInterval(-1)) }
                == .notYetValid(notBefore: notBefore))
        #expect(identityError { try pki.identity("expired.pem", "rsa.key") } == .expired(notAfter: notAfter))
        #expect(
            identityError { try pki.identity("future.pem", "rsa.key") }
                == .notYetValid(notBefore: Timestamp(timeIntervalSince1970: 4_070_908_800)))  // 2099-01-01
    }

    @Test func keyMustBeTheLeafCertificates() async throws {
        guard let pki = try await pki() else { return }
        #expect(identityError { try pki.identity("rsa.pem", "other.key") } == .keyDoesNotMatchCertificate)
        #expect(identityError { try pki.identity("ec.pem", "rsa.key") } == .keyDoesNotMatchCertificate)
        #expect(identityError { try pki.identity("rsa.pem", "ec.key") } == .keyDoesNotMatchCertificate)
        // The intermediate's key is in the chain file's second certificate, not its leaf.
        #expect(identityError { try pki.identity("chain.pem", "intermediate.key") } == .keyDoesNotMatchCertificate)
    }

    @Test func encryptedKeysAreRefused() async throws {
        guard let pki = try await pki() else { return }
        #expect(identityError { try pki.identity("ec.pem", "encrypted-pkcs8.key") } == .encryptedKey)
        #expect(identityError { try pki.identity("ec.pem", "encrypted-sec1.key") } == .encryptedKey)
    }

    @Test func unsupportedKeyTypesAreRefused() async throws {
        guard let pki = try await pki() else { return }
        #expect(identityError { try pki.identity("p521.pem", "p521.key") } == .unsupportedKey(algorithm: "secp521r1", bits: 521))
        #expect(identityError { try pki.identity("rsa1024.pem", "rsa1024.key") } == .unsupportedKey(algorithm: "RSA", bits: 1024))
    }

    @Test func certificateMustAllowClientAuthentication() async throws {
        guard let pki = try await pki() else { return }
        guard case .notForClientAuthentication(let reason)? = identityError({ try pki.identity("server-only.pem", "rsa.key") }) else {
            Issue.record("server-only certificate accepted"); return
        }
        #expect(reason.contains("clientAuth"))
    }

    @Test func unreadableInputIsRefused() async throws {
        guard let pki = try await pki() else { return }
        let cert = pki.bytes("rsa.pem")
        let key = SecretBytes(pki.bytes("rsa.key"))
        func make(_ c: [UInt8], _ k: SecretBytes) -> ClientIdentityError? {
            identityError { try TLSClientIdentity(certificateChainPEM: c, privateKeyPEM: k, at: .now()) }
        }
        let garbage = Array("not a certificate at all\n".utf8)
        let truncated = Array(cert.prefix(cert.count / 2)) + Array("\n-----END CERTIFICATE-----\n".utf8)
        for bad in [garbage, [], truncated, pki.bytes("rsa.key")] {
            guard case .unreadableCertificate? = make(bad, key) else { Issue.record("certificate \(bad.count) bytes accepted"); continue }
        }
        // A chain with one good and one broken certificate is refused too (never a silently shorter chain).
        guard case .unreadableCertificate? = make(cert + truncated, key) else { Issue.record("partly broken chain accepted"); return }
        for bad in [garbage, [], pki.bytes("rsa.pem"), Array(pki.bytes("rsa.key").prefix(200))] {
            guard case .unreadableKey? = make(cert, SecretBytes(bad)) else { Issue.record("key \(bad.count) bytes accepted"); continue }
        }
    }

    @Test func descriptionShowsNoKeyMaterial() async throws {
        guard let pki = try await pki() else { return }
        let identity = try pki.identity("ec.pem", "ec.key")
        let text = "\(identity) \(String(reflecting: identity))"
        #expect(text.contains("CN=latchkey ec client"))
        #expect(text.contains("EC P-256"))
        #expect(!text.contains("PRIVATE"))
        #expect(!containsKeyLine(text, key: TestEnvironment.readFile(pki.path("ec.key"))))
    }

    /// Sharing one parsed RSA key between concurrent handshakes relies on the RSA context's mutex
    /// (see ClientIdentityMaterial); this fails on an mbedTLS built without threading support.
    @Test func mbedTLSIsBuiltWithThreadingSupport() {
        #expect(mbedtls_version_check_feature("MBEDTLS_THREADING_C") == 0)
        #expect(mbedtls_version_check_feature("MBEDTLS_THREADING_PTHREAD") == 0)
    }
}

func hex(_ bytes: [UInt8]) -> String {
    let digits = Array("0123456789abcdef")
    return String(bytes.flatMap { [digits[Int($0 >> 4)], digits[Int($0 & 0xF)]] })
}

/// Whether `text` contains any base64 line of the PEM `key` (a leak of key material).
func containsKeyLine(_ text: String, key: String) -> Bool {
    key.split(separator: "\n").filter { !$0.hasPrefix("-----") && $0.count >= 16 }.contains { text.contains(String($0)) }
}
