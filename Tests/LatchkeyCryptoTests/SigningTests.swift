import Glibc
import LatchkeyCrypto
import LatchkeyTestSupport
import Testing

/// ECDSA and RSA signing against published vectors, the project's own verifiers and OpenSSL.
@Suite struct SigningTests {
    let random: SecureRandom

    init() throws { random = try SecureRandom() }

    // MARK: ECDSA (RFC 6979 deterministic)

    /// RFC 6979 A.2.5 (P-256) and A.2.6 (P-384): keys, public points and r‖s for SHA-256/384/512 over
    /// "sample" and "test". Cross-checked with pyca/cryptography's deterministic ECDSA.
    static let rfc6979: [(curve: ECCurve, d: String, x: String, y: String)] = [
        (
            .p256, "c9afa9d845ba75166b5c215767b1d6934e50c3db36e89b127b8a622b120f6721",
            "60fed4ba255a9d31c961eb74c6356d68c049b8923b61fa6ce669622e60f29fb6",
            "7903fe1008b8bc99a41ae9e95628bc64f2f1b20c2d7e9f5177a3c294d4462299"
        ),
        (
            .p384, "6b9d3dad2e1b8c1c05b19875b6659f4de23c3b667bf297ba9aa47740787137d896d5724e4c70a825f872c9ea60d2edf5",
            "ec3a4e415b4e19a4568618029f427fa5da9a8bc4ae92e02e06aae5286b300c64def8f0ea9055866064a254515480bc13",
            "8015d9b72d7d57244ea8ef9ac0c621896708a59367f9dfb9f54ca84b3f1c9db1288b231c3ae0d4fe7344fd2533264720"
        )
    ]
    static let rfc6979Signatures: [(ECCurve, HashAlgorithm, String, String)] = [
        (
            .p256, .sha256, "sample",
            "efd48b2aacb6a8fd1140dd9cd45e81d69d2c877b56aaf991c34d0ea84eaf3716f7cb1c942d657c41d436c7a1b6e29f65f3e900dbb9aff4064dc4ab2f843acda8"
        ),
        (
            .p256, .sha256, "test",
            "f1abb023518351cd71d881567b1ea663ed3efcf6c5132b354f28d3b0b7d38367019f4113742a2b14bd25926b49c649155f267e60d3814b4c0cc84250e46f0083"
        ),
        (
            .p256, .sha384, "sample",
            "0eafea039b20e9b42309fb1d89e213057cbf973dc0cfc8f129edddc800ef77194861f0491e6998b9455193e34e7b0d284ddd7149a74b95b9261f13abde940954"
        ),
        (
            .p256, .sha384, "test",
            "83910e8b48bb0c74244ebdf7f07a1c5413d61472bd941ef3920e623fbccebeb68ddbec54cf8cd5874883841d712142a56a8d0f218f5003cb0296b6b509619f2c"
        ),
        (
            .p256, .sha512, "sample",
            "8496a60b5e9b47c825488827e0495b0e3fa109ec4568fd3f8d1097678eb97f002362ab1adbe2b8adf9cb9edab740ea6049c028114f2460f96554f61fae3302fe"
        ),
        (
            .p256, .sha512, "test",
            "461d93f31b6540894788fd206c07cfa0cc35f46fa3c91816fff1040ad1581a0439af9f15de0db8d97e72719c74820d304ce5226e32dedae67519e840d1194e55"
        ),
        (
            .p384, .sha256, "sample",
            "21b13d1e013c7fa1392d03c5f99af8b30c570c6f98d4ea8e354b63a21d3daa33bde1e888e63355d92fa2b3c36d8fb2cdf3aa443fb107745bf4bd77cb3891674632068a10ca67e3d45db2266fa7d1feebefdc63eccd1ac42ec0cb8668a4fa0ab0"
        ),
        (
            .p384, .sha256, "test",
            "6d6defac9ab64dabafe36c6bf510352a4cc27001263638e5b16d9bb51d451559f918eedaf2293be5b475cc8f0188636b2d46f3becbcc523d5f1a1256bf0c9b024d879ba9e838144c8ba6baeb4b53b47d51ab373f9845c0514eefb14024787265"
        ),
        (
            .p384, .sha384, "sample",
            "94edbb92a5ecb8aad4736e56c691916b3f88140666ce9fa73d64c4ea95ad133c81a648152e44acf96e36dd1e80fabe4699ef4aeb15f178cea1fe40db2603138f130e740a19624526203b6351d0a3a94fa329c145786e679e7b82c71a38628ac8"
        ),
        (
            .p384, .sha384, "test",
            "8203b63d3c853e8d77227fb377bcf7b7b772e97892a80f36ab775d509d7a5feb0542a7f0812998da8f1dd3ca3cf023dbddd0760448d42d8a43af45af836fce4de8be06b485e9b61b827c2f13173923e06a739f040649a667bf3b828246baa5a5"
        ),
        (
            .p384, .sha512, "sample",
            "ed0959d5880ab2d869ae7f6c2915c6d60f96507f9cb3e047c0046861da4a799cfe30f35cc900056d7c99cd7882433709512c8cceee3890a84058ce1e22dbc2198f42323ce8aca9135329f03c068e5112dc7cc3ef3446defceb01a45c2667fdd5"
        ),
        (
            .p384, .sha512, "test",
            "a0d5d090c9980faf3c2ce57b7ae951d31977dd11c775d314af55f76c676447d06fb6495cd21b4b6e340fc236584fb277976984e59b4c77b0e8e4460dca3d9f20e07b9bb1f63beefaf576f6b2e8b224634a2092cd3792e0159ad9cee37659c736"
        )
    ]

    func rfc6979Key(_ curve: ECCurve) throws -> ECPrivateKey {
        let v = try #require(Self.rfc6979.first { $0.curve == curve })
        return try ECPrivateKey(curve: curve, rawScalar: SecretBytes(Hex.decode(v.d)), random: random)
    }

    @Test func rfc6979KeysDeriveThePublishedPoints() throws {
        for v in Self.rfc6979 {
            let key = try rfc6979Key(v.curve)
            #expect(Hex.encode(key.publicKey.x) == v.x && Hex.encode(key.publicKey.y) == v.y)
            #expect(Hex.encode(key.rawScalar.bytes) == v.d)
        }
    }

    @Test func rfc6979Signatures() throws {
        for (curve, hash, message, expected) in Self.rfc6979Signatures {
            let key = try rfc6979Key(curve)
            let signature = try key.signature(for: Array(message.utf8), hash: hash)
            #expect(Hex.encode(signature) == expected, "\(curve) \(hash) \"\(message)\"")
            #expect(key.publicKey.isValidSignature(rawRS: signature, for: Array(message.utf8), hash: hash))
        }
    }

    @Test func ecdsaHalvesAreFixedWidthAndLeftPadded() throws {
        let key = try ECPrivateKey(curve: .p256, random: random)
        var padded = 0
        for i in 0..<3000 where padded < 2 {
            let message = Array("m\(i)".utf8)
            let signature = try key.signature(for: message, hash: .sha256)
            #expect(signature.count == 64)
            if signature[0] == 0 || signature[32] == 0 {
                padded += 1
                #expect(key.publicKey.isValidSignature(rawRS: signature, for: message, hash: .sha256))
            }
        }
        #expect(padded == 2, "no signature with a leading zero byte in r or s was seen")
    }

    @Test func ecKeysAreP256OrP384() throws {
        #expect(throws: CryptoError.self) { _ = try ECPrivateKey(curve: .p521, random: random) }
        let p384 = try ECPrivateKey(curve: .p384, random: random)
        let again = try ECPrivateKey(curve: .p384, rawScalar: p384.rawScalar, random: random)
        #expect(again.publicKey == p384.publicKey)
        #expect(throws: CryptoError.invalidKey("p384 private scalar is 32 bytes, expected 48")) {
            _ = try ECPrivateKey(curve: .p384, rawScalar: SecretBytes([UInt8](repeating: 1, count: 32)), random: random)
        }
        #expect(throws: CryptoError.invalidKey("p256 private scalar out of range")) {
            _ = try ECPrivateKey(curve: .p256, rawScalar: SecretBytes([UInt8](repeating: 0xFF, count: 32)), random: random)
        }
    }

    // MARK: RSA

    func rsa(_ pem: String) throws -> RSAPrivateKey {
        guard case .rsa(let key) = try SigningKey(pem: pem, random: random) else { throw CryptoError.invalidKey("fixture is not RSA") }
        return key
    }

    /// RFC 7515 A.2: PKCS#1 v1.5 is deterministic, so the published RS256 signature must come out.
    @Test func rfc7515AppendixA2Signature() throws {
        let key = try rsa(PEMFixtures.rfc7515AppendixA2)
        let input = Array(
            "eyJhbGciOiJSUzI1NiJ9.eyJpc3MiOiJqb2UiLA0KICJleHAiOjEzMDA4MTkzODAsDQogImh0dHA6Ly9leGFtcGxlLmNvbS9pc19yb290Ijp0cnVlfQ".utf8)
        let signature = try key.pkcs1v15Signature(for: input, hash: .sha256)
        #expect(Hex.encode(signature) == Self.rfc7515A2SignatureHex)
    }

    /// The A.2 signature bytes (RFC 7515 lists them as decimal octets).
    static let rfc7515A2SignatureHex =
        "702e218943e88fd11eb5d82dbf7845f34106ae1b81fff7731116add1717d83656d420afd3c96eedd73a2663e5166687b000b87226e0187ed1073f945e582adfcef16d85a798ee8c66ddb3db8975b17d09402beedd5d9d97007108db28160d5f8040ca7445762b81fbe7ff9d92e0ae76f24f25b33bbe6f44ae61eb1040acb2004"
        + "4d3ef9128ed40130795bd4bd3b41eecad066ab651981fde48df77f372dc38b9fafdd3befb18b5da3cc3c2eb02f9e3a41d612caad15911273a05f23b9e838faaf849d698429ef5a1e88798236c3d40e604522a544c8f27a7a2db80663d16cf7caea56de405cb2215a45b2c25566b55ac1a748a070dfc8a32a469543d019eefb47"

    @Test func rsaSignaturesVerifyWithTheOwnVerifier() throws {
        let key = try rsa(PEMFixtures.rsa2048PKCS8)
        let message = Array("payload".utf8)
        for hash in [HashAlgorithm.sha256, .sha384, .sha512] {
            let v15 = try key.pkcs1v15Signature(for: message, hash: hash)
            #expect(v15.count == 256 && key.publicKey.isValidPKCS1v15Signature(v15, for: message, hash: hash))
            #expect(try key.pkcs1v15Signature(for: message, hash: hash) == v15, "PKCS#1 v1.5 is deterministic")
            let pss = try key.pssSignature(for: message, hash: hash)
            #expect(pss.count == 256 && key.publicKey.isValidPSSSignature(pss, for: message, hash: hash))
            #expect(!key.publicKey.isValidPKCS1v15Signature(pss, for: message, hash: hash))
            #expect(!key.publicKey.isValidPSSSignature(pss, for: Array("other".utf8), hash: hash))
            #expect(try key.pssSignature(for: message, hash: hash) != pss, "PSS salts are random")
        }
    }

    /// Wycheproof's RSASSA-PKCS1-v1_5 *generation* vectors: keys given as PKCS#1 PEM, and the one
    /// correct signature per message. (Wycheproof has no generation vectors for PSS or ECDSA: both
    /// are randomised there; ECDSA is covered by RFC 6979 above.)
    @Test(arguments: ["rsa_pkcs1_2048_sig_gen_test.json", "rsa_pkcs1_3072_sig_gen_test.json", "rsa_pkcs1_4096_sig_gen_test.json"])
    func wycheproofPKCS1Generation(file: String) throws {
        guard WycheproofVectors.available(for: file) else { return }
        let vectors = try WycheproofVectors.load(WycheproofFile<RSASignatureGenerationGroup>.self, from: file)
        var matched = 0, skippedHash = 0
        for group in vectors.testGroups {
            guard let hash = HashAlgorithm(wycheproofName: group.sha) else { skippedHash += group.tests.count; continue }
            let key = try rsa(group.privateKeyPem)
            #expect(key.publicKey.modulusBitCount == group.keySize)
            for test in group.tests {
                let signature = try key.pkcs1v15Signature(for: Hex.decode(test.msg), hash: hash)
                #expect(Hex.encode(signature) == test.sig.lowercased(), "\(file) tc \(test.tcId)")
                matched += 1
            }
        }
        print("wycheproof \(file): \(matched) signatures reproduced exactly; skipped \(skippedHash) (SHA-1/SHA-224)")
        #expect(matched > 0)
    }

    /// PSS signatures verified by an independent implementation: `openssl dgst -sigopt rsa_padding_mode:pss`.
    @Test func pssVerifiesWithOpenSSL() throws {
        let openssl = try Requirement.requireOrSkip(Self.which("openssl"), "openssl is not installed")
        let dir = try TemporaryDirectory(prefix: "latchkey-pss-")
        defer { dir.remove() }
        let key = try rsa(PEMFixtures.rsa2048PKCS1)
        #expect(FileText.write(PEMFixtures.rsa2048PKCS1, to: dir.path + "/key.pem"))
        let pub = try ProcessRunner.run(openssl, ["pkey", "-in", dir.path + "/key.pem", "-pubout", "-out", dir.path + "/pub.pem"])
        try #require(pub.exitCode == 0, "\(pub)")
        let message = Array("PSS checked by OpenSSL".utf8)
        #expect(Self.writeBytes(message, to: dir.path + "/msg"))
        for (hash, name) in [(HashAlgorithm.sha256, "-sha256"), (.sha384, "-sha384"), (.sha512, "-sha512")] {
            var signature = try key.pssSignature(for: message, hash: hash)
            func verify() throws -> ProcessResult {
                #expect(Self.writeBytes(signature, to: dir.path + "/sig"))
                return try ProcessRunner.run(
                    openssl,
                    [
                        "dgst", name, "-sigopt", "rsa_padding_mode:pss", "-sigopt", "rsa_pss_saltlen:\(hash.byteCount)",
                        "-verify", dir.path + "/pub.pem", "-signature", dir.path + "/sig", dir.path + "/msg"
                    ])
            }
            let good = try verify()
            #expect(good.exitCode == 0 && good.stdoutText.hasPrefix("Verified OK"), "\(name): \(good)")
            signature[100] ^= 1
            let bad = try verify()
            #expect(bad.exitCode != 0, "\(name): OpenSSL accepted a damaged signature")
        }
    }

    static func which(_ tool: String) -> String? {
        for dir in ["/usr/bin", "/usr/local/bin", "/bin"] where access(dir + "/" + tool, X_OK) == 0 { return dir + "/" + tool }
        return nil
    }

    static func writeBytes(_ bytes: [UInt8], to path: String) -> Bool {
        let fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o600)
        guard fd >= 0 else { return false }
        defer { close(fd) }
        return bytes.withUnsafeBytes { write(fd, $0.baseAddress, $0.count) } == bytes.count
    }
}

/// `RsassaPkcs1Generate` group: a private key and deterministic signatures.
struct RSASignatureGenerationGroup: Decodable {
    struct Case: Decodable {
        let tcId: Int
        let msg: String
        let sig: String
    }
    let keySize: Int
    let sha: String
    let privateKeyPem: String
    let tests: [Case]
}
