import Glibc
import Latchkey
import Testing

/// The state folder is checked on every read with the rules of a write (docs/security.md,
/// "Permissions"): whoever can write the folder can swap the files in it, so reading from such a
/// folder trusts that person.
@Suite struct StateDirectoryReadTests {
    @Test(arguments: [0o777, 0o770, 0o730, 0o707, 0o702, 0o1777])
    func writableStateDirectoryIsRefusedOnRead(mode: Int) throws {
        let tmp = TemporaryDirectory()
        let store = Fixture.store(tmp.path)
        try store.save(Fixture.session())
        chmod(tmp.path, mode_t(mode))
        defer { chmod(tmp.path, 0o700) }
        #expect { try store.load() } throws: { error in
            Fixture.isStoreError(error) { if case .unsafePermissions(tmp.path, _) = $0 { true } else { false } }
        }
    }

    @Test(arguments: [0o700, 0o750, 0o755, 0o500])
    func stateDirectoryWithoutOtherWritersIsReadable(mode: Int) throws {
        let tmp = TemporaryDirectory()
        let store = Fixture.store(tmp.path)
        try store.save(Fixture.session())
        chmod(tmp.path, mode_t(mode))
        defer { chmod(tmp.path, 0o700) }
        #expect(try store.load() == Fixture.session())
    }

    @Test func missingStateDirectoryIsNoSessionAndIsNotCreated() throws {
        let tmp = TemporaryDirectory()
        let state = tmp.path + "/never-made"
        #expect(try Fixture.store(state).load() == nil)
        var info = stat()
        #expect(lstat(state, &info) != 0)
    }

    /// A symlinked state folder (an admin's choice) is judged by its target, as on write.
    @Test func symlinkedStateDirectoryIsJudgedByItsTarget() throws {
        let tmp = TemporaryDirectory()
        let real = tmp.path + "/real"
        try Fixture.store(real).save(Fixture.session())
        let link = tmp.path + "/link"
        #expect(symlink(real, link) == 0)
        #expect(try Fixture.store(link).load() == Fixture.session())
        chmod(real, 0o777)
        defer { chmod(real, 0o700) }
        #expect { try Fixture.store(link).load() } throws: { error in
            Fixture.isStoreError(error) { if case .unsafePermissions(link, _) = $0 { true } else { false } }
        }
    }

    @Test func stateDirectoryOwnedByAnotherUserIsRefusedOnRead() throws {
        guard geteuid() == 0 else {
            // chown to another user needs root; in CI the suite runs as root.
            #expect(!Fixture.isCI, "CI must run this suite as root to test foreign ownership")
            print("skipped stateDirectoryOwnedByAnotherUserIsRefusedOnRead: not root")
            return
        }
        let tmp = TemporaryDirectory()
        let store = Fixture.store(tmp.path)
        try store.save(Fixture.session())
        chown(tmp.path, 4242, 4242)
        defer { chown(tmp.path, 0, 0) }
        #expect(throws: TokenStoreError.wrongOwner(path: tmp.path, owner: 4242, expected: 0)) { try store.load() }
    }

    /// `PrivateFile` (the CLI's `profiles/NAME.json`) checks the folder it reads from.
    @Test func privateFileInAWritableFolderIsRefusedOnRead() throws {
        let tmp = TemporaryDirectory()
        let folder = tmp.path + "/profiles"
        try PrivateFile.write(Array("{}".utf8), directory: folder, fileName: "default.json")
        #expect(try PrivateFile.read(folder + "/default.json", limit: 100) == Array("{}".utf8))
        chmod(folder, 0o777)
        defer { chmod(folder, 0o700) }
        #expect { try PrivateFile.read(folder + "/default.json", limit: 100) } throws: { error in
            Fixture.isStoreError(error) { if case .unsafePermissions(folder, _) = $0 { true } else { false } }
        }
    }

    @Test func privateFileInAMissingFolderIsNil() throws {
        let tmp = TemporaryDirectory()
        #expect(try PrivateFile.read(tmp.path + "/profiles/default.json", limit: 100) == nil)
    }
}
