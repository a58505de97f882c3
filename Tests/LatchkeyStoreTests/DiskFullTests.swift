import FoundationEssentials
import Glibc
import Latchkey
import Testing

/// A save on a full file system fails with "disk full" and leaves the old file as it was.
@Suite struct DiskFullTests {
    @Test func fullTmpfsFailsTheWriteAndKeepsTheOldFile() throws {
        let tmp = TemporaryDirectory("diskfull")
        let mountPoint = tmp.path + "/mnt"
        mkdir(mountPoint, 0o700)
        guard ChildProcess.run("/bin/mount", ["-t", "tmpfs", "-o", "size=64k,mode=0700", "tmpfs", mountPoint]) == 0 else {
            #expect(!Fixture.isCI, "CI must be able to mount a small tmpfs (run as root with CAP_SYS_ADMIN)")
            print("skipped fullTmpfsFailsTheWriteAndKeepsTheOldFile: cannot mount tmpfs here")
            return
        }
        defer { _ = ChildProcess.run("/bin/umount", [mountPoint]) }

        let store = Fixture.store(mountPoint)
        try store.save(Fixture.session(generation: 1))
        let before = try #require(Fixture.read(store.tokenFilePath))

        try fill(mountPoint + "/filler")
        #expect { try store.save(Fixture.session(generation: 2)) } throws: { error in
            guard let storeError = error as? TokenStoreError, case let .io(path, _, code) = storeError else { return false }
            return path == store.tokenFilePath && code == ENOSPC && storeError.description.contains("disk full")
        }
        #expect(Fixture.read(store.tokenFilePath) == before)
        #expect(try store.load() == Fixture.session(generation: 1))
        let entries = try FileManager.default.contentsOfDirectory(atPath: mountPoint).sorted()
        #expect(entries == ["default.tokens", "filler", "machine.key"], "the temporary file must be removed")

        unlink(mountPoint + "/filler")
        try store.save(Fixture.session(generation: 2))
        #expect(try store.load() == Fixture.session(generation: 2))
    }

    /// Writes until the file system refuses even one more byte.
    func fill(_ path: String) throws {
        let fd = open(path, O_WRONLY | O_CREAT | O_EXCL, 0o600)
        try #require(fd >= 0)
        defer { close(fd) }
        let block = [UInt8](repeating: 0xAA, count: 4096)
        for size in [4096, 1] {
            while true {
                let written = block.withUnsafeBytes { Glibc.write(fd, $0.baseAddress, size) }
                if written < 0 { try #require(errno == ENOSPC); break }
            }
        }
    }
}
