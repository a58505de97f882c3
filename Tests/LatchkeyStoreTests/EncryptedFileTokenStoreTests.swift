import FoundationEssentials
import Glibc
import Latchkey
import LatchkeyCrypto
import Synchronization
import Testing

/// The default store on disk: every key source, refusals, and that a failed read never touches the file.
@Suite struct EncryptedFileTokenStoreTests {
    // MARK: Round trips

    @Test func machineKeyRoundTripCreatesOwnerOnlyFiles() throws {
        let tmp = TemporaryDirectory()
        let dir = tmp.path + "/nested/state"
        let store = Fixture.store(dir)
        #expect(try store.load() == nil)
        #expect(Fixture.read(dir + "/machine.key") == nil, "a read must not create the machine key")

        try store.save(Fixture.session())
        #expect(Fixture.mode(dir) == 0o700)
        #expect(Fixture.mode(store.tokenFilePath) == 0o600)
        #expect(Fixture.mode(store.machineKeyPath) == 0o600)
        #expect(Fixture.read(store.machineKeyPath)?.count == 32)
        // A fresh instance (another process, in effect) reads it back.
        #expect(try Fixture.store(dir).load() == Fixture.session())

        try store.save(Fixture.session(generation: 2))
        #expect(try Fixture.store(dir).load() == Fixture.session(generation: 2))
        let entries = try FileManager.default.contentsOfDirectory(atPath: dir).sorted()
        #expect(entries == ["default.tokens", "machine.key"], "no temporary file may be left behind")
    }

    @Test func everyWriteUsesAFreshSaltAndNonce() throws {
        let tmp = TemporaryDirectory()
        let store = Fixture.store(tmp.path)
        try store.save(Fixture.session())
        let first = try #require(Fixture.read(store.tokenFilePath))
        try store.save(Fixture.session())
        let second = try #require(Fixture.read(store.tokenFilePath))
        #expect(first.count == second.count)
        #expect(Array(first[14..<42]) != Array(second[14..<42]))  // salt and nonce
    }

    @Test func passphraseRoundTripAsksOnceAndReusesTheDerivedKey() throws {
        let tmp = TemporaryDirectory()
        let calls = Mutex(0)
        let secret = SecretBytes(Fixture.passphrase)
        let store = EncryptedFileTokenStore(
            stateDirectory: tmp.path, profile: "default", keySource: .passphrase,
            passphrase: {
                calls.withLock { $0 += 1 }; return secret
            })
        try store.save(Fixture.session())
        let bytes = try #require(Fixture.read(store.tokenFilePath))
        #expect(bytes[5] == 2)
        #expect(Fixture.read(tmp.path + "/machine.key") == nil)
        #expect(try store.load() == Fixture.session())
        try store.save(Fixture.session(generation: 2))  // refresh: load then save
        #expect(calls.withLock { $0 } == 1, "PBKDF2 and the prompt run once per store")

        let other = Fixture.store(tmp.path, keySource: .passphrase)
        #expect(try other.load() == Fixture.session(generation: 2))
    }

    @Test func wrongOrMissingPassphraseFailsAndLeavesTheFile() throws {
        let tmp = TemporaryDirectory()
        try Fixture.store(tmp.path, keySource: .passphrase).save(Fixture.session())
        let path = tmp.path + "/default.tokens"
        let before = try #require(Fixture.read(path))

        let wrong = Fixture.store(tmp.path, keySource: .passphrase, passphrase: Array("Tr0ub4dor&3".utf8))
        #expect(throws: TokenStoreError.wrongKeyOrTampered(path: path)) { try wrong.load() }
        let none = Fixture.store(tmp.path, keySource: .passphrase, passphrase: nil)
        #expect(throws: TokenStoreError.passphraseRequired) { try none.load() }
        #expect(Fixture.read(path) == before)
    }

    @Test func credentialRoundTripAndMissingCredential() throws {
        let tmp = TemporaryDirectory()
        let credentials = tmp.path + "/creds"
        mkdir(credentials, 0o500)
        let key = try SecureRandom().bytes(48)
        Fixture.write(key, to: credentials + "/latchkey.key", mode: 0o400)
        let state = tmp.path + "/state"
        let store = Fixture.store(state, keySource: .credential, environment: ["CREDENTIALS_DIRECTORY": credentials])
        try store.save(Fixture.session())
        #expect(try #require(Fixture.read(store.tokenFilePath))[5] == 3)
        #expect(try store.load() == Fixture.session())
        #expect(Fixture.read(state + "/machine.key") == nil)

        let noEnvironment = Fixture.store(state, keySource: .credential)
        #expect { try noEnvironment.load() } throws: { error in
            Fixture.isStoreError(error) {
                if case let .keyUnavailable(reason) = $0 { reason.contains("CREDENTIALS_DIRECTORY") } else { false }
            }
        }
        let elsewhere = Fixture.store(state, keySource: .credential, environment: ["CREDENTIALS_DIRECTORY": tmp.path + "/none"])
        #expect { try elsewhere.load() } throws: { error in
            Fixture.isStoreError(error) { if case .keyUnavailable = $0 { true } else { false } }
        }
        // Another credential: same file, different key.
        Fixture.write(try SecureRandom().bytes(32), to: credentials + "/latchkey.key", mode: 0o400)
        #expect(throws: TokenStoreError.wrongKeyOrTampered(path: store.tokenFilePath)) { try store.load() }
    }

    @Test func keyFileRoundTripAndKeyFileRefusals() throws {
        let tmp = TemporaryDirectory()
        let keyPath = tmp.path + "/token.key"
        Fixture.write(try SecureRandom().bytes(32), to: keyPath)
        let state = tmp.path + "/state"
        let store = Fixture.store(state, keySource: .file(path: keyPath))
        try store.save(Fixture.session())
        #expect(try #require(Fixture.read(store.tokenFilePath))[5] == 4)
        #expect(try Fixture.store(state, keySource: .file(path: keyPath)).load() == Fixture.session())
        let before = try #require(Fixture.read(store.tokenFilePath))

        chmod(keyPath, 0o644)
        #expect { try store.load() } throws: { error in
            Fixture.isStoreError(error) { if case .unsafePermissions(keyPath, _) = $0 { true } else { false } }
        }
        chmod(keyPath, 0o600)

        let shortKey = tmp.path + "/short.key"
        Fixture.write([UInt8](repeating: 7, count: 16), to: shortKey)
        #expect { try Fixture.store(state, keySource: .file(path: shortKey)).load() } throws: { error in
            Fixture.isStoreError(error) { if case let .keyUnavailable(reason) = $0 { reason.contains("at least 32") } else { false } }
        }
        let otherKey = tmp.path + "/other.key"
        Fixture.write(try SecureRandom().bytes(32), to: otherKey)
        #expect(throws: TokenStoreError.wrongKeyOrTampered(path: store.tokenFilePath)) {
            try Fixture.store(state, keySource: .file(path: otherKey)).load()
        }
        #expect(Fixture.read(store.tokenFilePath) == before)
    }

    // MARK: Refusals that leave the file alone

    @Test func machineIDChangeIsAWrongKey() throws {
        let tmp = TemporaryDirectory()
        let machineID = tmp.path + "/machine-id"
        Fixture.write(Array("3d1219c7c4c5404aaa1f6d2a48adfda4\n".utf8), to: machineID, mode: 0o644)
        let state = tmp.path + "/state"
        try Fixture.store(state, machineIDPath: machineID).save(Fixture.session())
        let path = state + "/default.tokens"
        let before = try #require(Fixture.read(path))
        #expect(try Fixture.store(state, machineIDPath: machineID).load() == Fixture.session())

        Fixture.write(Array("0123456789abcdef0123456789abcdef\n".utf8), to: machineID, mode: 0o644)
        #expect(throws: TokenStoreError.wrongKeyOrTampered(path: path)) {
            try Fixture.store(state, machineIDPath: machineID).load()
        }
        unlink(machineID)  // a container without /etc/machine-id is another machine, too
        #expect(throws: TokenStoreError.wrongKeyOrTampered(path: path)) {
            try Fixture.store(state, machineIDPath: machineID).load()
        }
        #expect(Fixture.read(path) == before)
    }

    @Test func copiedMachineKeyAndFileDoNotOpenWithAnotherMachineKey() throws {
        let tmp = TemporaryDirectory()
        try Fixture.store(tmp.path + "/a").save(Fixture.session())
        try Fixture.store(tmp.path + "/b").save(Fixture.session(generation: 5))
        // Move a's token file next to b's (different) machine key.
        let moved = try #require(Fixture.read(tmp.path + "/a/default.tokens"))
        Fixture.write(moved, to: tmp.path + "/b/default.tokens")
        #expect(throws: TokenStoreError.wrongKeyOrTampered(path: tmp.path + "/b/default.tokens")) {
            try Fixture.store(tmp.path + "/b").load()
        }
        #expect(Fixture.read(tmp.path + "/b/default.tokens") == moved)
    }

    @Test func fileOfAnotherProfileIsRefusedByName() throws {
        let tmp = TemporaryDirectory()
        try Fixture.store(tmp.path).save(Fixture.session())
        let copied = try #require(Fixture.read(tmp.path + "/default.tokens"))
        Fixture.write(copied, to: tmp.path + "/work.tokens")
        #expect(throws: TokenStoreError.profileMismatch(path: tmp.path + "/work.tokens", expected: "work", found: "default")) {
            try Fixture.store(tmp.path, profile: "work").load()
        }
        #expect(Fixture.read(tmp.path + "/work.tokens") == copied)
        // And a session for one profile cannot be saved into another's store.
        #expect(throws: TokenStoreError.self) { try Fixture.store(tmp.path, profile: "work").save(Fixture.session()) }
    }

    @Test func keySourceMismatchIsNamed() throws {
        let tmp = TemporaryDirectory()
        try Fixture.store(tmp.path).save(Fixture.session())
        let path = tmp.path + "/default.tokens"
        #expect(throws: TokenStoreError.keySourceMismatch(path: path, file: "machine", configured: "passphrase")) {
            try Fixture.store(tmp.path, keySource: .passphrase).load()
        }
    }

    @Test func everyBitFlipOnDiskIsDetectedAndTheFileIsLeftAsItWas() throws {
        let tmp = TemporaryDirectory()
        let store = Fixture.store(tmp.path)
        try store.save(Fixture.session())
        let original = try #require(Fixture.read(store.tokenFilePath))
        var detected = 0
        for index in original.indices {
            for bit in 0..<8 {
                var tampered = original
                tampered[index] ^= UInt8(1 << bit)
                Fixture.write(tampered, to: store.tokenFilePath)
                do {
                    _ = try store.load()
                    Issue.record("flip of bit \(bit) in byte \(index) went unnoticed")
                } catch {
                    detected += 1
                }
                #expect(Fixture.read(store.tokenFilePath) == tampered, "the store touched a file it could not read")
            }
        }
        #expect(detected == original.count * 8)
    }

    @Test func everyTruncationOnDiskIsReportedAsTruncated() throws {
        let tmp = TemporaryDirectory()
        let store = Fixture.store(tmp.path)
        try store.save(Fixture.session())
        let original = try #require(Fixture.read(store.tokenFilePath))
        for length in 0..<original.count {
            let cut = Array(original[0..<length])
            Fixture.write(cut, to: store.tokenFilePath)
            #expect(throws: TokenStoreError.truncated(path: store.tokenFilePath)) { try store.load() }
            #expect(Fixture.read(store.tokenFilePath) == cut)
        }
    }

    @Test func newerVersionIsRefusedWithAClearMessage() throws {
        let tmp = TemporaryDirectory()
        let store = Fixture.store(tmp.path)
        try store.save(Fixture.session())
        var bytes = try #require(Fixture.read(store.tokenFilePath))
        bytes[4] = 7
        Fixture.write(bytes, to: store.tokenFilePath)
        do {
            _ = try store.load()
            Issue.record("a version-7 file was read")
        } catch {
            #expect(error == .unsupportedVersion(path: store.tokenFilePath, found: 7, supported: 1))
            #expect(
                error.description
                    == "token file \(store.tokenFilePath) has format version 7 but this latchkey reads version 1: written by a newer latchkey"
            )
        }
        #expect(Fixture.read(store.tokenFilePath) == bytes)
    }

    @Test func garbageIsCorruptNotACrash() throws {
        let tmp = TemporaryDirectory()
        let store = Fixture.store(tmp.path)
        try store.save(Fixture.session())
        Fixture.write(Array("access_token=abc\n".utf8), to: store.tokenFilePath)
        #expect { try store.load() } throws: { error in
            Fixture.isStoreError(error) { if case .corrupt = $0 { true } else { false } }
        }
        #expect(Fixture.read(store.tokenFilePath) == Array("access_token=abc\n".utf8))
    }

    // MARK: Permissions and ownership

    @Test(arguments: [0o644, 0o640, 0o604, 0o660, 0o606, 0o700, 0o610])
    func groupOrWorldAccessibleTokenFileIsRefused(mode: Int) throws {
        let tmp = TemporaryDirectory()
        let store = Fixture.store(tmp.path)
        try store.save(Fixture.session())
        let before = try #require(Fixture.read(store.tokenFilePath))
        chmod(store.tokenFilePath, mode_t(mode))
        if mode & 0o077 == 0 {
            #expect(try store.load() == Fixture.session())  // 0700: owner-only, still fine
        } else {
            #expect { try store.load() } throws: { error in
                Fixture.isStoreError(error) { if case .unsafePermissions(store.tokenFilePath, _) = $0 { true } else { false } }
            }
        }
        #expect(Fixture.read(store.tokenFilePath) == before)
        #expect(Fixture.mode(store.tokenFilePath) == mode_t(mode), "the store must not fix modes silently")
    }

    @Test func ownerOnlyModesAreAccepted() throws {
        let tmp = TemporaryDirectory()
        let store = Fixture.store(tmp.path)
        try store.save(Fixture.session())
        for mode: mode_t in [0o600, 0o400] {
            chmod(store.tokenFilePath, mode)
            #expect(try store.load() == Fixture.session())
        }
    }

    @Test func worldReadableMachineKeyIsRefused() throws {
        let tmp = TemporaryDirectory()
        let store = Fixture.store(tmp.path)
        try store.save(Fixture.session())
        chmod(store.machineKeyPath, 0o644)
        #expect { try store.load() } throws: { error in
            Fixture.isStoreError(error) { if case .unsafePermissions(store.machineKeyPath, _) = $0 { true } else { false } }
        }
        #expect { try store.save(Fixture.session(generation: 2)) } throws: { _ in true }
    }

    @Test func fileOwnedByAnotherUserIsRefused() throws {
        guard geteuid() == 0 else {
            // chown to another user needs root; in CI the suite runs as root.
            #expect(!Fixture.isCI, "CI must run this suite as root to test foreign ownership")
            print("skipped fileOwnedByAnotherUserIsRefused: not root")
            return
        }
        let tmp = TemporaryDirectory()
        let store = Fixture.store(tmp.path)
        try store.save(Fixture.session())
        chown(store.tokenFilePath, 4242, 4242)
        #expect(throws: TokenStoreError.wrongOwner(path: store.tokenFilePath, owner: 4242, expected: 0)) { try store.load() }
        chown(store.tokenFilePath, 0, 0)
        chown(store.machineKeyPath, 4242, 4242)
        #expect(throws: TokenStoreError.wrongOwner(path: store.machineKeyPath, owner: 4242, expected: 0)) { try store.load() }
    }

    @Test func symbolicLinksAreRefused() throws {
        let tmp = TemporaryDirectory()
        let store = Fixture.store(tmp.path)
        try store.save(Fixture.session())
        rename(store.tokenFilePath, tmp.path + "/real.tokens")
        symlink(tmp.path + "/real.tokens", store.tokenFilePath)
        #expect(throws: TokenStoreError.unsafePermissions(path: store.tokenFilePath, reason: "is a symbolic link")) {
            try store.load()
        }
    }

    @Test func groupWritableStateDirectoryIsRefusedOnWrite() throws {
        let tmp = TemporaryDirectory()
        chmod(tmp.path, 0o770)
        #expect { try Fixture.store(tmp.path).save(Fixture.session()) } throws: { error in
            Fixture.isStoreError(error) { if case .unsafePermissions(tmp.path, _) = $0 { true } else { false } }
        }
    }

    // MARK: Delete and housekeeping

    @Test func deleteRemovesTheTokenFileOnly() throws {
        let tmp = TemporaryDirectory()
        let store = Fixture.store(tmp.path)
        try store.save(Fixture.session())
        try store.delete()
        try store.delete()  // idempotent
        #expect(try store.load() == nil)
        #expect(Fixture.read(store.machineKeyPath)?.count == 32, "the key outlives a logout")
    }

    @Test func staleTemporariesOfKilledWritersAreRemoved() throws {
        let tmp = TemporaryDirectory()
        let store = Fixture.store(tmp.path)
        let stale = tmp.path + "/.default.tokens.tmp-00deadbeef000000"
        let fresh = tmp.path + "/.default.tokens.tmp-0000000000000001"
        let foreign = tmp.path + "/.work.tokens.tmp-00deadbeef000000"
        for path in [stale, fresh, foreign] { Fixture.write([1, 2, 3], to: path) }
        var old = [timespec(tv_sec: 1_000_000_000, tv_nsec: 0), timespec(tv_sec: 1_000_000_000, tv_nsec: 0)]
        utimensat(AT_FDCWD, stale, &old, 0)
        utimensat(AT_FDCWD, foreign, &old, 0)
        try store.save(Fixture.session())
        #expect(Fixture.read(stale) == nil)
        #expect(Fixture.read(fresh) != nil, "a temporary file in use by a live writer stays")
        #expect(Fixture.read(foreign) != nil, "another profile's files are not ours")
    }

    @Test func invalidProfileNamesAreRefusedBeforeAnyFileIsTouched() throws {
        let tmp = TemporaryDirectory()
        let store = Fixture.store(tmp.path, profile: "../escape")
        #expect(throws: TokenStoreError.invalidProfileName("../escape")) { try store.load() }
        #expect(throws: TokenStoreError.invalidProfileName("../escape")) { try store.save(Fixture.session(profile: "../escape")) }
    }
}
