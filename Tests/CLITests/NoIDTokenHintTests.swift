import FoundationEssentials
import Glibc
import Latchkey
import LatchkeyHTTP
import LatchkeyTestSupport
import Testing

/// `claims` and `id-token` on a session without an ID token exit 3 and say what is true. A
/// device-grant session at a provider that issues ID tokens only on refresh (django-allauth) was
/// told to "sign in again with the openid scope", which it already had and which changes nothing.
@Suite("latchkey binary: a session without an ID token")
struct NoIDTokenHintTests {
    /// A stored session without an ID token, granted `scope`, with or without a refresh token.
    func signIn(_ cli: LatchkeyCommand, scope: String?, refreshToken: Bool = true) throws {
        try StoredSessionFixture.signIn(cli, scope: scope, refreshToken: refreshToken)
    }

    @Test func openidGrantedButNoIDTokenPointsToRefresh() throws {
        try withCLI { cli, _ in
            try signIn(cli, scope: "openid offline_access")
            for command in ["claims", "id-token", "whoami"] {
                let result = try cli.run([command])
                #expect(result.exitCode == 3, "\(command): \(result)")
                #expect(result.stdout.isEmpty)
                expectErrorLines(result)
                let text = result.stderrText
                #expect(text.contains("holds no ID token") && text.contains("issued none"), "\(command): \(text)")
                #expect(text.contains("latchkey refresh"), "\(command): \(text)")
                #expect(!text.contains("sign in again with the openid scope"), "\(command): \(text)")
            }
        }
    }

    @Test func openidNotGrantedSaysTheScopeIsNeeded() throws {
        try withCLI { cli, _ in
            try signIn(cli, scope: "offline_access profile")
            let result = try cli.run(["claims"])
            #expect(result.exitCode == 3, "\(result)")
            expectErrorLines(result)
            let text = result.stderrText
            #expect(text.contains("openid") && text.contains("latchkey login --scope"), "\(text)")
            #expect(!text.contains("latchkey refresh"), "a refresh cannot add a scope: \(text)")
        }
    }

    @Test func withoutARefreshTokenOnlyASignInCanHelp() throws {
        try withCLI { cli, _ in
            try signIn(cli, scope: "openid", refreshToken: false)
            let result = try cli.run(["claims"])
            #expect(result.exitCode == 3, "\(result)")
            expectErrorLines(result)
            let text = result.stderrText
            #expect(text.contains("holds no ID token") && text.contains("issued none"), "\(text)")
            #expect(!text.contains("latchkey refresh") && text.contains("latchkey login"), "\(text)")
        }
    }
}
