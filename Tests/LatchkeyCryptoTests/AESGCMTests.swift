import Testing

@testable import LatchkeyCrypto

/// AES-256-GCM: a known answer, round trips, and every kind of tampering.
@Suite struct AESGCMTests {
    let key = SecretBytes((0..<32).map { UInt8($0) })
    let nonce: [UInt8] = (100..<112).map { UInt8($0) }

    // McGrew–Viega GCM test case 14: zero key, zero IV, one zero block.
    @Test func knownAnswerZeroKey() throws {
        let sealed = try AESGCM.seal(
            [UInt8](repeating: 0, count: 16), key: SecretBytes([UInt8](repeating: 0, count: 32)),
            nonce: [UInt8](repeating: 0, count: 12), authenticating: [])
        #expect(Hex.encode(sealed.ciphertext) == "cea7403d4d606b6e074ec5d3baf39d18")
        #expect(Hex.encode(sealed.tag) == "d0d1c8a799996bf0265b98b5d48ab919")
    }

    @Test(arguments: [0, 1, 15, 16, 17, 2048, 100_000])
    func roundTrip(_ length: Int) throws {
        let plaintext = (0..<length).map { UInt8(truncatingIfNeeded: $0 &* 31) }
        let aad = Array("header|profile".utf8)
        let sealed = try AESGCM.seal(plaintext, key: key, nonce: nonce, authenticating: aad)
        #expect(sealed.ciphertext.count == length)
        #expect(sealed.tag.count == 16)
        if length > 16 { #expect(sealed.ciphertext != plaintext) }
        let opened = try AESGCM.open(sealed.ciphertext, tag: sealed.tag, key: key, nonce: nonce, authenticating: aad)
        #expect(opened == plaintext)
    }

    @Test func tamperingIsDetected() throws {
        let plaintext = Array("refresh_token=abc".utf8)
        let aad: [UInt8] = [1, 2, 3]
        let (ct, tag) = try AESGCM.seal(plaintext, key: key, nonce: nonce, authenticating: aad)
        var badCT = ct; badCT[0] ^= 1
        var badTag = tag; badTag[15] ^= 0x80
        var badNonce = nonce; badNonce[11] ^= 1
        let otherKey = SecretBytes([UInt8](repeating: 9, count: 32))
        #expect(throws: CryptoError.authenticationFailed) { try AESGCM.open(badCT, tag: tag, key: key, nonce: nonce, authenticating: aad) }
        #expect(throws: CryptoError.authenticationFailed) { try AESGCM.open(ct, tag: badTag, key: key, nonce: nonce, authenticating: aad) }
        #expect(throws: CryptoError.authenticationFailed) { try AESGCM.open(ct, tag: tag, key: key, nonce: badNonce, authenticating: aad) }
        #expect(throws: CryptoError.authenticationFailed) { try AESGCM.open(ct, tag: tag, key: key, nonce: nonce, authenticating: [1, 2]) }
        #expect(throws: CryptoError.authenticationFailed) {
            try AESGCM.open(ct, tag: tag, key: otherKey, nonce: nonce, authenticating: aad)
        }
        #expect(throws: CryptoError.authenticationFailed) {
            try AESGCM.open(Array(ct.dropLast()), tag: tag, key: key, nonce: nonce, authenticating: aad)
        }
    }

    @Test func parameterSizesAreChecked() {
        let short = SecretBytes([UInt8](repeating: 1, count: 16))
        #expect(throws: CryptoError.self) { try AESGCM.seal([1], key: short, nonce: nonce, authenticating: []) }
        #expect(throws: CryptoError.self) { try AESGCM.seal([1], key: key, nonce: [1, 2, 3], authenticating: []) }
        #expect(throws: CryptoError.self) {
            try AESGCM.open([1], tag: [UInt8](repeating: 0, count: 12), key: key, nonce: nonce, authenticating: [])
        }
        do {
            _ = try AESGCM.seal([1], key: short, nonce: nonce, authenticating: [])
            Issue.record("16-byte key accepted")
        } catch {
            guard case .invalidKey = error else { Issue.record("wrong error \(error)"); return }
        }
    }

    @Test func errorDescriptionsCarryMbedTLSText() {
        let error = CryptoError.mbedTLS(code: -0x0012, operation: "mbedtls_gcm_auth_decrypt")
        #expect(error.description.contains("-0x12"))
        #expect(error.description.contains("mbedtls_gcm_auth_decrypt"))
        #expect(error.description.contains("GCM"))
    }
}
