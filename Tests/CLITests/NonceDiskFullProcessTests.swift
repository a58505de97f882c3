import Glibc
import LatchkeyJOSE
import LatchkeyTestSupport
import Testing

/// Issue 37 §1: a resource server's nonce must never cost the session. The scripted resource
/// refuses the first call with `401 DPoP error="invalid_token"` and an 8,000-byte `DPoP-Nonce` of
/// bytes that are not UTF-8; `fetch` refreshes (the provider rotates the refresh token) and must
/// then save on a state folder with little room left. Before the fix the nonce was stored (tripled in
/// size), the save failed ("disk full", exit 9) and the next refresh was `invalid_grant` (exit 3).
@Suite("A DPoP nonce on a nearly full disk", .serialized)
struct NonceDiskFullProcessTests {
    /// Free bytes on the file system holding `path`.
    static func free(_ path: String) -> Int {
        var info = statvfs()
        guard statvfs(path, &info) == 0 else { return -1 }
        return Int(info.f_bavail) * Int(info.f_bsize)
    }

    /// Fills the file system of `directory` until about `leaving` bytes are free.
    static func fill(_ directory: String, leaving: Int) throws {
        let fd = open(directory + "/filler", O_WRONLY | O_CREAT | O_EXCL, 0o600)
        try #require(fd >= 0)
        defer { close(fd) }
        let block = [UInt8](repeating: 0xAA, count: 4096)
        while free(directory) > leaving + 4096 {
            let written = block.withUnsafeBytes { Glibc.write(fd, $0.baseAddress, $0.count) }
            guard written > 0 else { break }
        }
        _ = fsync(fd)
    }

    @Test func aHugeNonceOnANearlyFullDiskKeepsTheRotatedRefreshToken() throws {
        let tmpfs = try SmallTmpfs(kilobytes: 512)
        defer { tmpfs.unmount() }
        let idp = try ScriptedIdP(scenario: "dpop-resource-huge-nonce", arguments: ["--interval", "1", "--approve-after", "1"])
        defer { idp.stop() }
        let state = tmpfs.path + "/state"
        let cli = try LatchkeyCommand(stateDirectory: state)
        let login = try cli.run(["login", "--issuer", idp.issuer, "--client-id", "cli-test"], timeout: .seconds(60))
        try #require(login.exitCode == 0, "\(login) \(login.stderrText)")
        let before = try #require(FileText.read(state + "/default.tokens")).utf8.count

        try Self.fill(tmpfs.path, leaving: 20 * 1024)
        let fetched = try cli.run(["-v", "fetch", idp.issuer + "/resource"], timeout: .seconds(60))
        #expect(fetched.exitCode == 0, "\(fetched) \(fetched.stderrText.suffix(600))")
        #expect(fetched.stderrText.contains("* DPoP-Nonce from \(idp.issuer) refused ("), "\(fetched.stderrText.suffix(600))")
        let log = try idp.logLines().map { try JSONParser().parseObject(Array($0.utf8)) }
        #expect(log.contains { $0["event"] == .string("resource-rejected") }, "the resource did not refuse first")
        #expect(log.contains { $0["event"] == .string("resource") }, "the retry with a fresh token did not arrive")

        // The rotated refresh token was saved: with the room given back, the next refresh works.
        #expect(unlink(tmpfs.path + "/filler") == 0)
        let token = try cli.run(["token", "--force-refresh"], timeout: .seconds(60))
        #expect(token.exitCode == 0, "\(token) \(token.stderrText)")
        let after = try #require(FileText.read(state + "/default.tokens")).utf8.count
        #expect(after < before + 2048, "the token file grew from \(before) to \(after) bytes")
    }
}
