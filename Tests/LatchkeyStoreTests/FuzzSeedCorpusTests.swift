import FoundationEssentials
import Latchkey
import LatchkeyCrypto
import Testing

/// The FuzzTokenFile seeds (Tests/FuzzCorpus/tokenfile) are real files sealed with the target's
/// fixed key (bytes 0…31). Checking them here pins the format: a change that breaks existing
/// files breaks this test, and the fuzzer keeps starting from valid inputs.
@Suite struct FuzzSeedCorpusTests {
    let directory = Fixture.packageRoot() + "/Tests/FuzzCorpus/tokenfile"
    let key = SecretBytes((0..<32).map { UInt8($0) })

    func seed(_ name: String) throws -> [UInt8] {
        try #require(Fixture.read(directory + "/" + name), "missing seed \(name)")
    }

    @Test(arguments: [
        ("valid-machine-full.lktf", "default", KeySource.Kind.machine),
        ("valid-machine-minimal.lktf", "default", .machine),
        ("valid-passphrase.lktf", "work", .passphrase),
        ("valid-credential.lktf", "svc", .credential),
        ("valid-file.lktf", "kiosk-1", .file)
    ])
    func validSeedsOpenWithTheFuzzKey(name: String, profile: String, kind: KeySource.Kind) throws {
        let file = try TokenFile.decode(try seed(name), path: name)
        #expect(file.keySource == kind)
        let session = try file.open(fileKey: key, expectedProfile: profile, path: name)
        #expect(session.profile == profile)
        #expect(session.token.accessToken == "at-123")
    }

    @Test func invalidSeedsFailAsLabelled() throws {
        #expect(throws: TokenStoreError.unsupportedVersion(path: "n", found: 2, supported: 1)) {
            _ = try TokenFile.decode(try seed("newer-version.lktf"), path: "n")
        }
        #expect(throws: TokenStoreError.truncated(path: "t")) {
            _ = try TokenFile.decode(try seed("truncated.lktf"), path: "t")
        }
    }
}
