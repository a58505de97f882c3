import Testing

@testable import LatchkeyCrypto

/// HKDF (RFC 5869) and PBKDF2-HMAC-SHA256 known answers, and their parameter checks.
@Suite struct KeyDerivationTests {
    @Test func hkdfRFC5869Case1() throws {
        let ikm = SecretBytes([UInt8](repeating: 0x0b, count: 22))
        let okm = try HKDF.deriveKey(
            inputKeyMaterial: ikm, salt: Hex.decode("000102030405060708090a0b0c"),
            info: Hex.decode("f0f1f2f3f4f5f6f7f8f9"), outputByteCount: 42)
        #expect(Hex.encode(okm.bytes) == "3cb25f25faacd57a90434f64d0362f2a2d2d0a90cf1a5a4c5db02d56ecc4c5bf34007208d5b887185865")
    }

    @Test func hkdfRFC5869Case3EmptySaltAndInfo() throws {
        let ikm = SecretBytes([UInt8](repeating: 0x0b, count: 22))
        let okm = try HKDF.deriveKey(inputKeyMaterial: ikm, salt: [], info: [], outputByteCount: 42)
        #expect(Hex.encode(okm.bytes) == "8da4e775a563c18f715f802a063c5a31b8a11f5c5ee1879ec3454e5f3c738d2d9d201395faa4b61a96c8")
    }

    @Test func hkdfRejectsBadLengths() {
        let ikm = SecretBytes([1, 2, 3])
        for bad in [0, -1, 255 * 32 + 1] {
            #expect(throws: CryptoError.self) {
                try HKDF.deriveKey(inputKeyMaterial: ikm, salt: [], info: [], outputByteCount: bad)
            }
        }
        #expect((try? HKDF.deriveKey(inputKeyMaterial: ikm, salt: [], info: [], outputByteCount: 255 * 32))?.count == 8160)
    }

    @Test(arguments: [
        ("password", "salt", 1, 32, "120fb6cffcf8b32c43e7225256c4f837a86548c92ccc35480805987cb70be17b"),
        ("password", "salt", 2, 32, "ae4d0c95af6b46d32d0adff928f06dd02a303f8ef3c251dfd6e2d85a95474c43"),
        ("password", "salt", 4096, 32, "c5e478d59288c841aa530db6845c4c8d962893a001ce4e11a4963873aa98134a"),
        (
            "passwordPASSWORDpassword", "saltSALTsaltSALTsaltSALTsaltSALTsalt", 4096, 40,
            "348c89dbcbd32b2f32d814b8116e84cf2b17347ebc1800181c4e2a1fb8dd53e1c635518c7dac47e9"
        )
    ])
    func pbkdf2SHA256(_ password: String, _ salt: String, _ iterations: Int, _ length: Int, _ expected: String) throws {
        let key = try PBKDF2.deriveKey(
            password: Array(password.utf8), salt: Array(salt.utf8),
            iterations: iterations, outputByteCount: length)
        #expect(key.count == length)
        #expect(Hex.encode(key.bytes) == expected)
    }

    @Test func pbkdf2RejectsBadParameters() {
        #expect(throws: CryptoError.self) { try PBKDF2.deriveKey(password: [1], salt: [2], iterations: 0, outputByteCount: 32) }
        #expect(throws: CryptoError.self) { try PBKDF2.deriveKey(password: [1], salt: [2], iterations: 1, outputByteCount: 0) }
    }
}
