import Testing

@testable import LatchkeyCrypto

/// RSA public keys: validation of n and e, PKCS#1 v1.5 and PSS verification.
/// The signatures were made once with an independent implementation (pyca/cryptography)
/// over a throwaway 2048-bit key; the 1024-bit modulus is another throwaway key.
@Suite struct RSATests {
    static let modulus = Hex.decode(
        "9d2d6e03f6e0b42e226402202e51dd0bc5c433e990f0ae9a35aacb65a9d2f64f60d91e411b23f9a6daefbc229ff4d6be"
            + "3a297d9bd65369f11c52b1c02eadd2907c390b4c68893dac7242fafb58e72de585ec27d25b5697b45a8f2f5be8a63411"
            + "4ddcffea9590975cee2714cdef5897d1ad85b997d386312460e087075724ace21ff69e92ef7cff58cb0ab936b4326809"
            + "974e29220d941fc36ca251f6f94e7511c5a10065d295c76a3a0d8e294843c3e359e522cf9e4bdfaecbaf70583e06dc53"
            + "c34a67d1c35156e103fea55a4cb658e4a84e6f28956d14ebd9b48c3015d9b1759c1bdbde5e8fe781e4a78a3fa3e2af36"
            + "aa9da96a3ca44455977651f7e1913bb5")
    static let message = Array("eyJhbGciOiJQUzI1NiJ9.eyJzdWIiOiJsYXRjaGtleSJ9".utf8)
    static let pkcs1SHA256 = Hex.decode(
        "2cbbb03555ba8174bbb55f738c1ee69c4923a8760141e574d23a6868bb49a89296d7f786f4a2535c43b26e35d569b66c"
            + "3699db806f2ce83d97947fe15523f7d1d083711708e5ed0f0cd255a2c3431afae0c3802ce5bddadf7526c3d43b7e0493"
            + "1cf9a676609ec7aed8f1d30cd6f96e6370e62a0928cc629516d0fa66c7efac5b584c6ba973e173fe81d31e4db98b52e2"
            + "928333c56271c7524979c41a4d138a9c54cd6e81ff0e11b8c5deacb9e014990274d0e38bbc637706e9ae5898901e9980"
            + "05a1847f851932bc9f895e16b7ee12235a05a44e24bd367709c74c77112f8935e2136ad4c845c05bd6d4db6610e24461"
            + "892bb385e3c84fd0340629eaccd34a7c")
    static let pkcs1SHA512 = Hex.decode(
        "7b585b4d9b6e15ba06e5abc41732d1bb8a3d6cd7990a764fbf5209e8fea92b7c065c0c811a4513302bc09a8ae92fee8c"
            + "632170b3c5de600a84f3ba753fb600ff82f483035f0857f9107357e9215715ee4d692237e0a9d46834529b25c883de9c"
            + "2ea0ef738b2fe4490e868af0c2d14ed71f55208c10668064fc80d6b819946d4a813d73cc1b9296ad174f8d993062c3e1"
            + "8c900629ddcb2f0a77cb24287f83aed6c333851a00cc51b49de657d6d540b235e3ac3056cd46a9c706d9ec5d0a93be3b"
            + "e5bfae5df5005ef59146d486f399773a312557811c9fbc6cde96c35a9860d786c7a2295162d0764c05ed3f631428e5e6"
            + "a700d3e14aa2636d7f3b5f597318b42e")
    static let pssSHA256Salt32 = Hex.decode(
        "8a1ea075a5230826f18bbacee22b74bc787a01a4b82524ffda58439b8b849cc94bf4c301fb0f5bfab06248767ecb185d"
            + "de50d250a36189f95100959d3f6616fcca0a336ab31ed6559f753acf3e0664b00dbfa16524aaaca60c5bbad72489f559"
            + "900f3336b1f830a3c8baab3cf9109d4d5851f21faeec14e50df5940e25d1c4e5cad1b382622cbd151bbc0ffefdd98733"
            + "27de34bac47f2f89cbdf827959d4a1ef672cc4ff5f8d0756241f1e2e991e8ed7c71ea2f884fa48e8be92d818eef3795b"
            + "a6e6dade29be40bbf6798b7f65ed2201a409a24746efc89af4518fa076bffb20b11511ca71d35596c2e09646787747c3"
            + "66902196bd6cfc3975e8aca354e987d3")
    static let pssSHA384Salt48 = Hex.decode(
        "75681a68d4d9a2ca0cff9ddb8818436ba7f20a33bd71086bff36e0fcc24d494665e73873b85ba8a98de3ca0d8c127add"
            + "4000f13c1267e68ade8c534a67c8b405218482f4be28557fa42a69912c42ada646b40783f9e996c7ff460079ba84c64f"
            + "35a028581c0112026fae48ecd5ab788a309bea37aee61d22df5f40dfe063cc820338dfde24512ebd0d17402523407f21"
            + "a6cf9c29a347103e415344566c0883076a22445b59d144ef99b77c0069b5300edcc472961e044f133003beacba4b2b23"
            + "b93261340ef4ad2cfe53512e6e115653b3405abb4ae7adf7d0832fd32a52500f820c00b646dc770530fdb4d7c2cbffe0"
            + "0adc639165c1332451828fce18248eee")
    /// PSS with a 20-byte salt: valid RSA-PSS, but not the JWS PS256 shape, so it must be refused.
    static let pssSHA256Salt20 = Hex.decode(
        "423fa430f7cfb3d311c007d9956671dbe2eb08d99616f3365e7e22acc0b1c937c800f882f76ca586ed8242bdb07f1da7"
            + "13f1816ed972318764abad8257b22f9bd2620eb689a30e8baefd028d8ce29ebc9b65a9dbf0f8181f4342507d3f6cc026"
            + "37c615ee542d37e026c2f99e2f70e9239ce8453e3af75aebc5c23ebeff757bb94dcbfc7081c465226772e4c9086d927a"
            + "faf81b58144c56215baa970112468b1c1645b183e434a26188508783415bceb0ba51c00d2160389ac78647276a193d27"
            + "70d5535763b6a9fe18ae4a9501bcefd990b8a7557a2fa007ef359242dcad72b47963b797c281e43f41246036497501ab"
            + "984741b2ef392b9c083074618f322456")
    static let modulus1024 = Hex.decode(
        "b1d739c708958a07f855b3b64da1c12e101a1624fe638e7626341ee8a936924f3daeda88ecc27a0ca2c780f845e72612"
            + "64ecce77ac990f7a0feb7e202ab6c7f477fe5ab32d3752a79a30e3c951191fde09443dcde48eef5d6d4d4a8aadbea2ca"
            + "a83fa0b8cfe6971ca67a3b3ec4f03ecb85c958d87a6058e3639332a17c3d62b3")
    static let f4: [UInt8] = [0x01, 0x00, 0x01]

    @Test func verifiesPKCS1v15() throws {
        let key = try RSAPublicKey(modulus: Self.modulus, exponent: Self.f4)
        #expect(key.modulusBitCount == 2048)
        #expect(key.isValidPKCS1v15Signature(Self.pkcs1SHA256, for: Self.message, hash: .sha256))
        #expect(key.isValidPKCS1v15Signature(Self.pkcs1SHA512, for: Self.message, hash: .sha512))
        #expect(!key.isValidPKCS1v15Signature(Self.pkcs1SHA256, for: Self.message, hash: .sha384))
        #expect(!key.isValidPKCS1v15Signature(Self.pkcs1SHA256, for: Self.message + [0], hash: .sha256))
        var flipped = Self.pkcs1SHA256; flipped[100] ^= 4
        #expect(!key.isValidPKCS1v15Signature(flipped, for: Self.message, hash: .sha256))
        // Same integer, wrong length: refused (RFC 8017 §8.2.2 step 1).
        #expect(!key.isValidPKCS1v15Signature([0] + Self.pkcs1SHA256, for: Self.message, hash: .sha256))
        #expect(!key.isValidPKCS1v15Signature(Self.pkcs1SHA256 + [0], for: Self.message, hash: .sha256))
        #expect(!key.isValidPKCS1v15Signature([], for: Self.message, hash: .sha256))
        // A PSS signature is not a PKCS#1 v1.5 signature.
        #expect(!key.isValidPKCS1v15Signature(Self.pssSHA256Salt32, for: Self.message, hash: .sha256))
    }

    @Test func verifiesPSSWithSaltLengthEqualToHash() throws {
        let key = try RSAPublicKey(modulus: Self.modulus, exponent: Self.f4)
        #expect(key.isValidPSSSignature(Self.pssSHA256Salt32, for: Self.message, hash: .sha256))
        #expect(key.isValidPSSSignature(Self.pssSHA384Salt48, for: Self.message, hash: .sha384))
        #expect(!key.isValidPSSSignature(Self.pssSHA256Salt20, for: Self.message, hash: .sha256))
        #expect(!key.isValidPSSSignature(Self.pssSHA256Salt32, for: Self.message, hash: .sha384))
        #expect(!key.isValidPSSSignature(Self.pkcs1SHA256, for: Self.message, hash: .sha256))
        var flipped = Self.pssSHA256Salt32; flipped[0] ^= 1
        #expect(!key.isValidPSSSignature(flipped, for: Self.message, hash: .sha256))
        #expect(!key.isValidPSSSignature(Self.pssSHA256Salt32 + [0], for: Self.message, hash: .sha256))
    }

    @Test func leadingZerosAreIgnored() throws {
        let key = try RSAPublicKey(modulus: [0, 0] + Self.modulus, exponent: [0] + Self.f4)
        #expect(key.modulusBitCount == 2048)
        #expect(key.modulusByteCount == 256)
        #expect(key.modulus == Self.modulus && key.exponent == Self.f4)
        #expect(key == (try RSAPublicKey(modulus: Self.modulus, exponent: Self.f4)))
        #expect(key != (try RSAPublicKey(modulus: Self.modulus, exponent: [3])))
        #expect(key.isValidPKCS1v15Signature(Self.pkcs1SHA256, for: Self.message, hash: .sha256))
    }

    @Test func rejectsSmallModulus() {
        do {
            _ = try RSAPublicKey(modulus: Self.modulus1024, exponent: Self.f4)
            Issue.record("1024-bit key accepted")
        } catch {
            #expect(error == .invalidKey("RSA modulus 1024 bits < 2048"))
        }
        // 2047 bits: clear the top bit of a 2048-bit modulus.
        var n2047 = Self.modulus; n2047[0] &= 0x7f
        #expect(throws: CryptoError.self) { try RSAPublicKey(modulus: n2047, exponent: Self.f4) }
        #expect(throws: CryptoError.self) { try RSAPublicKey(modulus: [], exponent: Self.f4) }
        #expect(throws: CryptoError.self) { try RSAPublicKey(modulus: [0, 0, 0], exponent: Self.f4) }
    }

    @Test(arguments: [[UInt8](), [0], [1], [2], [0, 1], [0x01, 0x00, 0x00], [0x01, 0x00, 0x02]])
    func rejectsBadExponent(_ exponent: [UInt8]) {
        #expect(throws: CryptoError.self) { try RSAPublicKey(modulus: Self.modulus, exponent: exponent) }
    }

    @Test func acceptsExponentThree() throws {
        #expect(try RSAPublicKey(modulus: Self.modulus, exponent: [3]).modulusBitCount == 2048)
    }

    @Test func rejectsEvenModulusAndExponentNotBelowModulus() {
        var even = Self.modulus; even[even.count - 1] &= 0xfe
        #expect(throws: CryptoError.self) { try RSAPublicKey(modulus: even, exponent: Self.f4) }
        var bigE = Self.modulus; bigE[bigE.count - 1] |= 1
        #expect(throws: CryptoError.self) { try RSAPublicKey(modulus: Self.modulus, exponent: bigE) }
    }

    @Test func concurrentVerifiesOnOneKey() async throws {
        let key = try RSAPublicKey(modulus: Self.modulus, exponent: Self.f4)
        let results = await withTaskGroup(of: Bool.self) { group in
            for i in 0..<16 {
                group.addTask {
                    (0..<25).allSatisfy { _ in
                        i % 2 == 0
                            ? key.isValidPKCS1v15Signature(Self.pkcs1SHA256, for: Self.message, hash: .sha256)
                            : key.isValidPSSSignature(Self.pssSHA256Salt32, for: Self.message, hash: .sha256)
                    }
                }
            }
            var all = [Bool]()
            for await ok in group { all.append(ok) }
            return all
        }
        #expect(results.count == 16 && results.allSatisfy { $0 })
    }
}
