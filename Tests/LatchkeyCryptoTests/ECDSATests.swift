import LatchkeyTesting
import Testing

@testable import LatchkeyCrypto

/// P-256 signing, ECDSA verification and public-key validation.
@Suite struct ECDSATests {
    // RFC 6979 A.2.5: P-256 key and the SHA-256 signature of "sample".
    static let rfc6979Scalar = "c9afa9d845ba75166b5c215767b1d6934e50c3db36e89b127b8a622b120f6721"
    static let rfc6979X = "60fed4ba255a9d31c961eb74c6356d68c049b8923b61fa6ce669622e60f29fb6"
    static let rfc6979Y = "7903fe1008b8bc99a41ae9e95628bc64f2f1b20c2d7e9f5177a3c294d4462299"
    static let rfc6979Sample =
        "efd48b2aacb6a8fd1140dd9cd45e81d69d2c877b56aaf991c34d0ea84eaf3716"
        + "f7cb1c942d657c41d436c7a1b6e29f65f3e900dbb9aff4064dc4ab2f843acda8"

    @Test func rfc6979KnownAnswer() throws {
        let key = try P256PrivateKey(rawScalar: SecretBytes(Hex.decode(Self.rfc6979Scalar)), random: SecureRandom())
        #expect(Hex.encode(key.publicKey.x) == Self.rfc6979X)
        #expect(Hex.encode(key.publicKey.y) == Self.rfc6979Y)
        let signature = try key.signature(for: Array("sample".utf8))
        #expect(Hex.encode(signature) == Self.rfc6979Sample)
        #expect(Hex.encode(key.rawScalar.bytes) == Self.rfc6979Scalar)
    }

    @Test func signVerifyRoundTripAndDeterminism() throws {
        let random = try SecureRandom()
        let key = try P256PrivateKey(random: random)
        let message = Array("eyJhbGciOiJFUzI1NiJ9.eyJzdWIiOiJ4In0".utf8)
        let signature = try key.signature(for: message)
        #expect(signature.count == 64)
        #expect(key.publicKey.curve == .p256)
        #expect(key.publicKey.isValidSignature(rawRS: signature, for: message, hash: .sha256))
        #expect(try key.signature(for: message) == signature, "RFC 6979 signatures must be deterministic")
        // Same key with a different blinding source: still the same signature.
        let rebuilt = try P256PrivateKey(rawScalar: key.rawScalar, random: CountingRandom(seed: 3))
        #expect(try rebuilt.signature(for: message) == signature)
        #expect(rebuilt.publicKey.x == key.publicKey.x && rebuilt.publicKey.y == key.publicKey.y)

        // An independently parsed public key verifies too.
        let parsed = try ECPublicKey(curve: .p256, x: key.publicKey.x, y: key.publicKey.y)
        #expect(parsed == key.publicKey)
        #expect(parsed.isValidSignature(rawRS: signature, for: message, hash: .sha256))

        var other = message; other[0] ^= 1
        #expect(!parsed.isValidSignature(rawRS: signature, for: other, hash: .sha256))
        #expect(!parsed.isValidSignature(rawRS: signature, for: message, hash: .sha384))
        var flipped = signature; flipped[40] ^= 1
        #expect(!parsed.isValidSignature(rawRS: flipped, for: message, hash: .sha256))
        #expect(!parsed.isValidSignature(rawRS: Array(signature.dropLast()), for: message, hash: .sha256))
        #expect(!parsed.isValidSignature(rawRS: [0] + signature, for: message, hash: .sha256))
        #expect(!parsed.isValidSignature(rawRS: [UInt8](repeating: 0, count: 64), for: message, hash: .sha256))
        let zeroS = Array(signature[0..<32]) + [UInt8](repeating: 0, count: 32)
        #expect(!parsed.isValidSignature(rawRS: zeroS, for: message, hash: .sha256))
    }

    @Test func keysFromDifferentRandomnessDiffer() throws {
        let a = try P256PrivateKey(random: CountingRandom(seed: 1))
        let b = try P256PrivateKey(random: CountingRandom(seed: 2))
        #expect(a.publicKey.x != b.publicKey.x)
        let msg: [UInt8] = [1, 2, 3]
        #expect(!b.publicKey.isValidSignature(rawRS: try a.signature(for: msg), for: msg, hash: .sha256))
    }

    @Test func publicKeyValidation() throws {
        let x = Hex.decode(Self.rfc6979X), y = Hex.decode(Self.rfc6979Y)
        _ = try ECPublicKey(curve: .p256, x: x, y: y)
        var offCurve = y; offCurve[31] ^= 1
        #expect(throws: CryptoError.self) { try ECPublicKey(curve: .p256, x: x, y: offCurve) }
        #expect(throws: CryptoError.self) { try ECPublicKey(curve: .p256, x: Array(x.dropFirst()), y: y) }
        #expect(throws: CryptoError.self) { try ECPublicKey(curve: .p256, x: [0] + x, y: [0] + y) }
        #expect(throws: CryptoError.self) {
            try ECPublicKey(curve: .p256, x: [UInt8](repeating: 0, count: 32), y: [UInt8](repeating: 0, count: 32))
        }
        // Coordinate ≥ p is rejected even if it reduces to a valid point.
        #expect(throws: CryptoError.self) { try ECPublicKey(curve: .p256, x: [UInt8](repeating: 0xff, count: 32), y: y) }
        // P-256 coordinates are not P-384 keys.
        #expect(throws: CryptoError.self) { try ECPublicKey(curve: .p384, x: x, y: y) }
        #expect(ECCurve.p256.coordinateByteCount == 32)
        #expect(ECCurve.p384.coordinateByteCount == 48)
        #expect(ECCurve.p521.coordinateByteCount == 66)
    }

    @Test func rejectsOutOfRangeScalar() {
        #expect(throws: CryptoError.self) {
            try P256PrivateKey(rawScalar: SecretBytes([UInt8](repeating: 0, count: 32)), random: CountingRandom(seed: 0))
        }
        #expect(throws: CryptoError.self) {
            try P256PrivateKey(rawScalar: SecretBytes([UInt8](repeating: 0xff, count: 32)), random: CountingRandom(seed: 0))
        }
        #expect(throws: CryptoError.self) { try P256PrivateKey(rawScalar: SecretBytes([1]), random: CountingRandom(seed: 0)) }
    }

    @Test func concurrentVerifiesAndSignsOnOneKey() async throws {
        let key = try P256PrivateKey(random: SecureRandom())
        let message = Array("concurrent".utf8)
        let signature = try key.signature(for: message)
        let results = await withTaskGroup(of: Bool.self) { group in
            for i in 0..<16 {
                group.addTask {
                    for _ in 0..<10 {
                        if i % 4 == 0 {
                            guard (try? key.signature(for: message)) == signature else { return false }
                        } else {
                            guard key.publicKey.isValidSignature(rawRS: signature, for: message, hash: .sha256) else { return false }
                        }
                    }
                    return true
                }
            }
            var all = [Bool]()
            for await ok in group { all.append(ok) }
            return all
        }
        #expect(results.count == 16)
        #expect(results.allSatisfy { $0 })
    }
}
