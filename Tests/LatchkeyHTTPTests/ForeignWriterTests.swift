import Glibc
import Testing

@testable import LatchkeyHTTP

/// The one rule for files that decide whom we trust (issue 31 §2): the walk from `/` down.
@Suite struct ForeignWriterTests {
    /// The walk and `absolute` work on bytes (the cached `token` runs them): relative paths,
    /// repeated slashes and `.` read as before. (No chdir: the suites share one process.)
    @Test func relativePathsAndOddSpellings() throws {
        let dir = TestEnvironment.makeTemporaryDirectory()
        defer { _ = system("rm -rf '\(dir)'") }
        TestEnvironment.writeFile(dir + "/f", "x")
        #expect(chmod(dir + "/f", 0o666) == 0)
        var buffer = [CChar](repeating: 0, count: 4096)
        let cwd = try #require(
            getcwd(&buffer, buffer.count).map { _ in
                String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
            })
        #expect(ForeignWriter.absolute("f") == (cwd == "/" ? "" : cwd) + "/f")
        #expect(ForeignWriter.absolute("/x/y") == "/x/y")
        #expect(ForeignWriter.of(dir + "//./f") == ForeignWriter(path: dir + "/f", who: .everyone))
        #expect(ForeignWriter.of(dir + "/./f/") == ForeignWriter(path: dir + "/f", who: .everyone))
        #expect(ForeignWriter.of("/") == nil)
    }

    @Test func aPrivateFileIsFineAndEveryLooseEntryIsNamed() throws {
        let dir = TestEnvironment.makeTemporaryDirectory()
        defer { _ = system("rm -rf '\(dir)'") }
        let file = dir + "/ca.pem"
        TestEnvironment.writeFile(file, "x")
        #expect(chmod(file, 0o644) == 0)
        #expect(ForeignWriter.of(file) == nil)
        #expect(chmod(file, 0o646) == 0)
        #expect(ForeignWriter.of(file) == ForeignWriter(path: file, who: .everyone))
        #expect(chmod(file, 0o664) == 0)
        #expect(ForeignWriter.of(file)?.who == .group(getegid()))
        #expect(chmod(file, 0o644) == 0)
        #expect(chmod(dir, 0o777) == 0)
        #expect(ForeignWriter.of(file) == ForeignWriter(path: dir, who: .everyone))
        #expect(chmod(dir, 0o1777) == 0)
        #expect(ForeignWriter.of(file) == nil, "a sticky folder is fine for its owner's file")
        #expect(chown(file, 4242, 4242) == 0)
        #expect(ForeignWriter.of(file) == ForeignWriter(path: file, who: .owner(4242)))
        #expect(chmod(dir, 0o700) == 0)
    }

    @Test func linksAreFollowedAndLoopsEndTheWalk() throws {
        let dir = TestEnvironment.makeTemporaryDirectory()
        defer { _ = system("rm -rf '\(dir)'") }
        let open = dir + "/open"
        #expect(mkdir(open, 0o700) == 0 && chmod(open, 0o777) == 0)
        TestEnvironment.writeFile(open + "/ca.pem", "x")
        // A relative link from a safe folder into an open one: judged by the target's folders.
        #expect(symlink("open/ca.pem", dir + "/link.pem") == 0)
        #expect(ForeignWriter.of(dir + "/link.pem") == ForeignWriter(path: open, who: .everyone))
        // `..` after a safe folder names a folder above it, which is checked too.
        #expect(ForeignWriter.of(open + "/../link.pem") == ForeignWriter(path: open, who: .everyone))
        // A loop of links is refused rather than followed forever.
        #expect(symlink(dir + "/b", dir + "/a") == 0 && symlink(dir + "/a", dir + "/b") == 0)
        #expect(ForeignWriter.of(dir + "/a")?.who == .unresolvedLink)
        // A missing entry ends the walk: the open that follows reports it.
        #expect(ForeignWriter.of(dir + "/missing/ca.pem") == nil)
    }
}
