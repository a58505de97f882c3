import Glibc
import LatchkeyTestSupport
import Testing

@testable import latchkey

/// `OutputFile`, the staging file of `fetch --output` and `--qr-file`: an unpredictable name,
/// created with O_EXCL|O_NOFOLLOW, and only what this process created is ever deleted.
@Suite struct OutputFileTests {
    static func names(_ dir: String) throws -> [String] {
        try ProcessRunner.run("/bin/ls", ["-A", dir]).stdoutLines.sorted()
    }

    @Test func aFileAtTheOldPredictableNameIsNeitherABlockerNorDeleted() throws {
        let dir = try TemporaryDirectory()
        defer { dir.remove() }
        let path = dir.path + "/out.json"
        // The name this process's staging file had: `.NAME.latchkey-PID`.
        let planted = ".out.json.latchkey-\(getpid())"
        #expect(FileText.write("planted", to: dir.path + "/" + planted))
        let file = try OutputFile(stagingFor: path)
        try file.write(Array("body".utf8)[...])
        try file.commit()
        #expect(FileText.read(path) == "body")
        let abandoned = try OutputFile(stagingFor: path)
        try abandoned.write(Array("half".utf8)[...])
        abandoned.discard()
        #expect(FileText.read(path) == "body")
        #expect(FileText.read(dir.path + "/" + planted) == "planted")
        #expect(try Self.names(dir.path) == [planted, "out.json"].sorted())
    }

    @Test func aSymbolicLinkPlantedAtTheOldNameIsNotFollowed() throws {
        let dir = try TemporaryDirectory()
        defer { dir.remove() }
        let victim = dir.path + "/victim"
        #expect(FileText.write("mine", to: victim))
        let link = dir.path + "/.img.svg.latchkey-\(getpid())"
        #expect(symlink(victim, link) == 0)
        try OutputFile.write(Array("<svg/>".utf8), to: dir.path + "/img.svg")
        #expect(FileText.read(dir.path + "/img.svg") == "<svg/>")
        #expect(FileText.read(victim) == "mine")
        var info = stat()
        #expect(lstat(link, &info) == 0 && info.st_mode & S_IFMT == S_IFLNK, "the planted link was removed")
    }

    @Test func aFolderThatCannotBeWrittenFailsAndDeletesNothing() throws {
        let dir = try TemporaryDirectory()
        defer { dir.remove() }
        #expect(throws: CommandFailure.self) { _ = try OutputFile(stagingFor: dir.path + "/missing/out.json") }
        #expect(try Self.names(dir.path).isEmpty)
    }
}

/// A name that exists is a collision: another is drawn, and the file found there is left alone.
@Suite struct OutputFileCollisionTests {
    @Test func aTakenNameIsSkippedAndKept() throws {
        let dir = try TemporaryDirectory()
        defer { dir.remove() }
        #expect(FileText.write("planted", to: dir.path + "/.out.json.latchkey-aaaa"))
        var suffixes = ["aaaa", "bbbb"]
        let file = try OutputFile(stagingFor: dir.path + "/out.json", suffix: { suffixes.removeFirst() })
        #expect(file.temporary == dir.path + "/.out.json.latchkey-bbbb")
        try file.write(Array("body".utf8)[...])
        try file.commit()
        #expect(FileText.read(dir.path + "/out.json") == "body")
        #expect(FileText.read(dir.path + "/.out.json.latchkey-aaaa") == "planted")
    }

    @Test func everyNameTakenFailsWithoutDeletingAny() throws {
        let dir = try TemporaryDirectory()
        defer { dir.remove() }
        #expect(FileText.write("planted", to: dir.path + "/.out.json.latchkey-aaaa"))
        var drawn = 0
        #expect(throws: CommandFailure.self) {
            _ = try OutputFile(
                stagingFor: dir.path + "/out.json",
                suffix: {
                    drawn += 1; return "aaaa"
                })
        }
        #expect(drawn == OutputFile.attempts)
        #expect(FileText.read(dir.path + "/.out.json.latchkey-aaaa") == "planted")
        #expect(try OutputFileTests.names(dir.path) == [".out.json.latchkey-aaaa"])
    }

    @Test func randomSuffixesAreLongAndDiffer() throws {
        let a = try OutputFile.randomSuffix(), b = try OutputFile.randomSuffix()
        #expect(a.count == 24 && b.count == 24 && a != b)
        #expect(a.utf8.allSatisfy { ($0 >= 0x30 && $0 <= 0x39) || ($0 >= 0x61 && $0 <= 0x66) })
    }
}
