import Glibc
import Latchkey
import Testing

/// Files a person names for a key or a certificate (RFC 8705 client certificates): the token
/// file's rules for the file itself, read at each use.
@Suite struct OwnerOnlyFileTests {
    func write(_ path: String, _ text: String, mode: mode_t) {
        let fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
        precondition(fd >= 0)
        _ = Array(text.utf8).withUnsafeBytes { Glibc.write(fd, $0.baseAddress, $0.count) }
        close(fd)
        chmod(path, mode)
    }

    @Test func anOwnerOnlyFileIsReadAndEveryChangeIsSeen() throws {
        let tmp = TemporaryDirectory("owner-only")
        let path = tmp.path + "/device.key"
        write(path, "first", mode: 0o600)
        #expect(try OwnerOnlyFile.read(path) == Array("first".utf8))
        write(path, "renewed", mode: 0o400)
        #expect(try OwnerOnlyFile.readSecret(path).bytes == Array("renewed".utf8))
    }

    @Test func groupOrOtherAccessIsRefused() {
        let tmp = TemporaryDirectory("owner-only")
        for mode: mode_t in [0o640, 0o604, 0o644, 0o660] {
            let path = tmp.path + "/device-\(mode).pem"
            write(path, "pem", mode: mode)
            #expect(throws: TokenStoreError.self) { _ = try OwnerOnlyFile.read(path) }
            do { _ = try OwnerOnlyFile.read(path) } catch {
                guard case .unsafePermissions(path, _) = error else { Issue.record("got \(error)"); continue }
            }
        }
    }

    @Test func aMissingFileADirectoryAndATooLargeFileAreErrors() {
        let tmp = TemporaryDirectory("owner-only")
        do { _ = try OwnerOnlyFile.read(tmp.path + "/absent"); Issue.record("read a missing file") } catch {
            guard case .io(_, "open", ENOENT) = error else { Issue.record("got \(error)"); return }
        }
        #expect(throws: TokenStoreError.self) { _ = try OwnerOnlyFile.read(tmp.path) }
        let big = tmp.path + "/big"
        write(big, String(repeating: "x", count: 100), mode: 0o600)
        #expect(throws: TokenStoreError.tooLarge(path: big, size: 100, limit: 10)) { _ = try OwnerOnlyFile.read(big, limit: 10) }
    }

    @Test func aSymbolicLinkIsFollowedAndItsTargetChecked() {
        let tmp = TemporaryDirectory("owner-only")
        let target = tmp.path + "/target.key", link = tmp.path + "/link.key"
        write(target, "key", mode: 0o600)
        symlink(target, link)
        #expect((try? OwnerOnlyFile.read(link)) == Array("key".utf8))
        chmod(target, 0o644)
        #expect(throws: TokenStoreError.self) { _ = try OwnerOnlyFile.read(link) }
    }
}

/// Public files a person names (a client certificate): any owner and mode, but a regular file
/// within the limit; the key beside it stays `OwnerOnlyFile`'s.
@Suite struct PublicFileTests {
    let owner = OwnerOnlyFileTests()

    @Test func anyModeIsRead() throws {
        let tmp = TemporaryDirectory("public-file")
        for mode: mode_t in [0o644, 0o444, 0o664, 0o666, 0o600] {
            let path = tmp.path + "/device-\(mode).pem"
            owner.write(path, "certificate", mode: mode)
            #expect(try PublicFile.read(path) == Array("certificate".utf8), "mode \(String(mode, radix: 8))")
        }
        // The key's rule is unchanged: the same 0644 file is refused as a key.
        #expect(throws: TokenStoreError.self) { _ = try OwnerOnlyFile.readSecret(tmp.path + "/device-420.pem") }
    }

    @Test func onlyARegularFileWithinTheLimitAndLinksAreFollowed() {
        let tmp = TemporaryDirectory("public-file")
        do { _ = try PublicFile.read(tmp.path + "/absent"); Issue.record("read a missing file") } catch {
            guard case .io(_, "open", ENOENT) = error else { Issue.record("got \(error)"); return }
        }
        #expect(throws: TokenStoreError.self) { _ = try PublicFile.read(tmp.path) }
        let fifo = tmp.path + "/fifo"
        #expect(mkfifo(fifo, 0o644) == 0)
        #expect(throws: TokenStoreError.self) { _ = try PublicFile.read(fifo) }
        let big = tmp.path + "/big"
        owner.write(big, String(repeating: "x", count: 100), mode: 0o644)
        #expect(throws: TokenStoreError.tooLarge(path: big, size: 100, limit: 10)) { _ = try PublicFile.read(big, limit: 10) }
        let link = tmp.path + "/link.pem"
        symlink(big, link)
        #expect((try? PublicFile.read(link))?.count == 100)
    }
}
