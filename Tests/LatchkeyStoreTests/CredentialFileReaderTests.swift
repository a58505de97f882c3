import Glibc
import Latchkey
import Testing

/// Subject, actor and assertion files (cli.md, "`exchange`"): the key-file rules, one token on
/// one line, a JWT where one is required, the file named in every refusal.
@Suite struct CredentialFileTests {
    static let jwt = "eyJhbGciOiJFUzI1NiJ9.eyJzdWIiOiJ4In0.c2ln"

    func write(_ path: String, _ text: String, mode: mode_t = 0o600) {
        let fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
        precondition(fd >= 0)
        _ = Array(text.utf8).withUnsafeBytes { Glibc.write(fd, $0.baseAddress, $0.count) }
        close(fd)
        chmod(path, mode)
    }

    @Test func oneTrailingNewlineIsIgnoredAndEveryChangeIsSeen() throws {
        let tmp = TemporaryDirectory("credential-file")
        let path = tmp.path + "/subject.jwt"
        write(path, Self.jwt + "\n")
        #expect(try CredentialFileReader.read(path, as: .jwt) == Self.jwt)
        write(path, "opaque-token\r\n", mode: 0o400)
        #expect(try CredentialFileReader.read(path, as: .token) == "opaque-token")
    }

    @Test func aSecondLineOrAnEmptyFileIsRefusedNamingTheFile() {
        let tmp = TemporaryDirectory("credential-file")
        let path = tmp.path + "/two-lines"
        for text in [Self.jwt + "\n\n", Self.jwt + "\nmore\n", "a\rb"] {
            write(path, text)
            #expect(throws: CredentialFileError.moreThanOneLine(path: path)) { _ = try CredentialFileReader.read(path, as: .token) }
        }
        write(path, "\n")
        #expect(throws: CredentialFileError.empty(path: path)) { _ = try CredentialFileReader.read(path, as: .token) }
        write(path, "two words")
        #expect(throws: CredentialFileError.notAToken(path: path)) { _ = try CredentialFileReader.read(path, as: .token) }
    }

    @Test func aJWTIsRequiredWhereOneIsAsked() {
        let tmp = TemporaryDirectory("credential-file")
        let path = tmp.path + "/assertion"
        for text in ["opaque", "a.b", "a.b.c.d", ".b.c", "a..c", "a+b.c.d", "a.b=.c"] {
            write(path, text)
            #expect(throws: CredentialFileError.notAJWT(path: path)) { _ = try CredentialFileReader.read(path, as: .jwt) }
        }
        write(path, "eyJhbGciOiJub25lIn0.eyJzdWIiOiJ4In0.")
        #expect((try? CredentialFileReader.read(path, as: .jwt)) == "eyJhbGciOiJub25lIn0.eyJzdWIiOiJ4In0.")
    }

    @Test func theKeyFileRulesApply() {
        let tmp = TemporaryDirectory("credential-file")
        let path = tmp.path + "/token"
        write(path, "token", mode: 0o640)
        do { _ = try CredentialFileReader.read(path, as: .token); Issue.record("read a group-readable file") } catch {
            guard case .refused(.unsafePermissions(path, _)) = error else { Issue.record("got \(error)"); return }
            #expect(error.path == path)
        }
        #expect(throws: CredentialFileError.unreadable(path: tmp.path + "/absent", errno: ENOENT)) {
            _ = try CredentialFileReader.read(tmp.path + "/absent", as: .token)
        }
        write(path, String(repeating: "x", count: 100))
        #expect(throws: CredentialFileError.refused(.tooLarge(path: path, size: 100, limit: 10))) {
            _ = try CredentialFileReader.read(path, as: .token, limit: 10)
        }
        let link = tmp.path + "/link"
        symlink(path, link)
        #expect((try? CredentialFileReader.read(link, as: .token)) == String(repeating: "x", count: 100))
    }
}
