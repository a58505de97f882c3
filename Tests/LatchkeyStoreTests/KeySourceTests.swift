import Latchkey
import Testing

@Suite struct KeySourceTests {
    @Test func parsesAndFormatsTheCLISpellings() {
        let cases: [(String, KeySource)] = [
            ("machine", .machine), ("passphrase", .passphrase), ("credential", .credential),
            ("file:/etc/latchkey/key", .file(path: "/etc/latchkey/key")), ("file:relative:with:colons", .file(path: "relative:with:colons"))
        ]
        for (text, source) in cases {
            #expect(KeySource(name: text) == source)
            #expect(source.name == text)
        }
    }

    @Test func rejectsEverythingElse() {
        for text in ["", "Machine", "file:", "file", "tpm", "machine ", "passphrase:x"] {
            #expect(KeySource(name: text) == nil, "\(text) was accepted")
        }
    }

    @Test func headerIdentifiersAreStable() {
        #expect(KeySource.machine.kind.rawValue == 1)
        #expect(KeySource.passphrase.kind.rawValue == 2)
        #expect(KeySource.credential.kind.rawValue == 3)
        #expect(KeySource.file(path: "/k").kind.rawValue == 4)
    }

    @Test func defaultStateDirectoryFollowsTheDocumentedOrder() {
        typealias S = EncryptedFileTokenStore
        #expect(
            S.defaultStateDirectory(environment: ["STATE_DIRECTORY": "/var/lib/latchkey", "XDG_STATE_HOME": "/x", "HOME": "/h"])
                == "/var/lib/latchkey")
        #expect(S.defaultStateDirectory(environment: ["STATE_DIRECTORY": "/a:/b"]) == "/a")
        #expect(S.defaultStateDirectory(environment: ["XDG_STATE_HOME": "/x/", "HOME": "/h"]) == "/x/latchkey")
        #expect(S.defaultStateDirectory(environment: ["XDG_STATE_HOME": "relative", "HOME": "/h"]) == "/h/.local/state/latchkey")
        #expect(S.defaultStateDirectory(environment: ["HOME": "/home/kiosk"]) == "/home/kiosk/.local/state/latchkey")
    }

    @Test func profileNamesThatAreSafeFileNames() {
        for name in ["default", "work-2", "a.b_c", String(repeating: "x", count: 64)] {
            #expect(EncryptedFileTokenStore.isValidProfileName(name))
        }
        for name in ["", ".hidden", "a/b", "..", "sp ace", String(repeating: "x", count: 65), "é"] {
            #expect(!EncryptedFileTokenStore.isValidProfileName(name), "\(name) was accepted")
        }
    }
}
