import Latchkey
import LatchkeyCrypto
import Testing

/// The pure container: layout, version refusal, truncation, authentication, without any I/O.
@Suite struct TokenFileFormatTests {
    let key = SecretBytes([UInt8](repeating: 0x42, count: 32))
    let salt = [UInt8](repeating: 0x11, count: 16)
    let nonce = [UInt8](repeating: 0x22, count: 12)

    func sealed(profile: String = "default") throws -> [UInt8] {
        try TokenFile.seal(
            Fixture.session(profile: profile), keySource: .machine,
            keyDerivation: .hkdfSHA256(salt: salt), nonce: nonce, fileKey: key
        ).encoded()
    }

    @Test func roundTripAndLayout() throws {
        let bytes = try sealed()
        #expect(Array(bytes[0..<4]) == Array("LKTF".utf8))
        #expect(bytes[4] == 1)  // version
        #expect(bytes[5] == 1)  // key source: machine
        #expect(bytes[6] == 7)  // "default".utf8.count
        #expect(Array(bytes[7..<14]) == Array("default".utf8))
        #expect(Array(bytes[14..<30]) == salt)
        #expect(Array(bytes[30..<42]) == nonce)
        let length = Int(bytes[42]) << 24 | Int(bytes[43]) << 16 | Int(bytes[44]) << 8 | Int(bytes[45])
        #expect(bytes.count == 46 + length + 16)

        let file = try TokenFile.decode(bytes, path: "t")
        #expect(file.profile == "default")
        #expect(file.keySource == .machine)
        #expect(file.keyDerivation == .hkdfSHA256(salt: salt))
        #expect(file.encoded() == bytes)
        #expect(try file.open(fileKey: key, expectedProfile: "default", path: "t") == Fixture.session())
    }

    @Test func passphraseHeaderCarriesIterationsAndSalt() throws {
        let bytes = try TokenFile.seal(
            Fixture.session(), keySource: .passphrase,
            keyDerivation: .pbkdf2SHA256(iterations: 600_000, salt: salt),
            nonce: nonce, fileKey: key
        ).encoded()
        #expect(bytes[5] == 2)
        #expect(Array(bytes[14..<18]) == [0x00, 0x09, 0x27, 0xC0])  // 600,000 big-endian
        #expect(Array(bytes[18..<34]) == salt)
        let file = try TokenFile.decode(bytes, path: "t")
        #expect(file.keyDerivation == .pbkdf2SHA256(iterations: 600_000, salt: salt))
    }

    @Test func plaintextDoesNotAppear() throws {
        let bytes = try sealed()
        let secret = Array("refresh-1".utf8)
        let found = (0...(bytes.count - secret.count)).contains { Array(bytes[$0..<$0 + secret.count]) == secret }
        #expect(!found)
    }

    @Test func newerVersionIsRefusedBeforeAnythingElseIsRead() throws {
        var bytes = try sealed()
        bytes[4] = 2
        // Garbage after the version must not matter: a newer layout is not ours to interpret.
        bytes.removeSubrange(6...)
        do {
            _ = try TokenFile.decode(bytes, path: "/x/default.tokens")
            Issue.record("version 2 was accepted")
        } catch {
            #expect(error == .unsupportedVersion(path: "/x/default.tokens", found: 2, supported: 1))
            #expect(error.description.contains("written by a newer latchkey"))
        }
    }

    @Test func everyTruncationIsReportedAsTruncated() throws {
        let bytes = try sealed()
        for length in 0..<bytes.count {
            #expect(throws: TokenStoreError.truncated(path: "t")) {
                _ = try TokenFile.decode(Array(bytes[0..<length]), path: "t")
            }
        }
    }

    @Test func trailingBytesAreCorrupt() throws {
        let bytes = try sealed() + [0]
        #expect(throws: TokenStoreError.self) { _ = try TokenFile.decode(bytes, path: "t") }
    }

    @Test func everyBitFlipIsDetected() throws {
        let bytes = try sealed()
        for index in bytes.indices {
            for bit in 0..<8 {
                var tampered = bytes
                tampered[index] ^= UInt8(1 << bit)
                do {
                    let file = try TokenFile.decode(tampered, path: "t")
                    _ = try file.open(fileKey: key, expectedProfile: "default", path: "t")
                    Issue.record("flip of bit \(bit) in byte \(index) went unnoticed")
                } catch {
                    // Any TokenStoreError is a detection; the typed throw guarantees the type.
                }
            }
        }
    }

    @Test func wrongKeyIsReportedAsWrongKeyOrTampered() throws {
        let file = try TokenFile.decode(try sealed(), path: "t")
        let other = SecretBytes([UInt8](repeating: 0x43, count: 32))
        #expect(throws: TokenStoreError.wrongKeyOrTampered(path: "t")) {
            _ = try file.open(fileKey: other, expectedProfile: "default", path: "t")
        }
    }

    @Test func wrongProfileIsNamed() throws {
        let file = try TokenFile.decode(try sealed(profile: "work"), path: "t")
        #expect(throws: TokenStoreError.profileMismatch(path: "t", expected: "default", found: "work")) {
            _ = try file.open(fileKey: key, expectedProfile: "default", path: "t")
        }
    }

    @Test func renamingTheProfileInTheHeaderFailsAuthentication() throws {
        // Rewrite the header's profile to the expected one; the AAD then no longer matches.
        var file = try TokenFile.decode(try sealed(profile: "other"), path: "t")
        file.profile = "default"
        let reparsed = try TokenFile.decode(file.encoded(), path: "t")
        #expect(throws: TokenStoreError.wrongKeyOrTampered(path: "t")) {
            _ = try reparsed.open(fileKey: key, expectedProfile: "default", path: "t")
        }
    }

    @Test func iterationCountsOutsideTheAllowedRangeAreCorrupt() throws {
        for iterations: UInt32 in [1, 599_999, 10_000_001, .max] {
            let file = TokenFile(
                keySource: .passphrase, profile: "default",
                keyDerivation: .pbkdf2SHA256(iterations: iterations, salt: salt),
                nonce: nonce, ciphertext: [1, 2, 3], tag: [UInt8](repeating: 0, count: 16))
            #expect(throws: TokenStoreError.self) { _ = try TokenFile.decode(file.encoded(), path: "t") }
        }
    }

    @Test func badMagicAndUnknownKeySource() throws {
        var bytes = try sealed()
        bytes[0] = UInt8(ascii: "X")
        #expect(throws: TokenStoreError.corrupt(path: "t", reason: "not a latchkey token file (bad magic)")) {
            _ = try TokenFile.decode(bytes, path: "t")
        }
        bytes = try sealed()
        bytes[5] = 9
        #expect(throws: TokenStoreError.corrupt(path: "t", reason: "unknown key source id 9")) {
            _ = try TokenFile.decode(bytes, path: "t")
        }
        #expect(throws: TokenStoreError.corrupt(path: "t", reason: "not a latchkey token file (bad magic)")) {
            _ = try TokenFile.decode(Array("{\"access_token\":1}".utf8), path: "t")
        }
    }

    @Test func oversizedInputIsRefusedUnparsed() {
        let huge = [UInt8](repeating: 0, count: TokenFile.maximumByteCount + 1)
        #expect(throws: TokenStoreError.tooLarge(path: "t", size: huge.count, limit: TokenFile.maximumByteCount)) {
            _ = try TokenFile.decode(huge, path: "t")
        }
    }
}
