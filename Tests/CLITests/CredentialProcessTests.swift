import Glibc
import Latchkey
import LatchkeyHTTP
import LatchkeyJOSE
import LatchkeyTestSupport
import Testing

/// `credential get|store|erase` and `logout --end-session` over a stored session (no IdP): the
/// token endpoint is a closed loopback port, so any refresh attempt shows as exit 6.
@Suite("latchkey binary: git credential helper and logout --end-session")
struct CredentialProcessTests {
    static let dead = SessionProcessTests.deadEndpoint

    func signIn(_ cli: LatchkeyCommand, profileExtra: String = "", endSession: String? = nil, expiresIn: Double = 3600) throws {
        let state = cli.stateDirectory
        mkdir(state, 0o700)
        mkdir(state + "/profiles", 0o700)
        let profile = #"{"issuer":"\#(Self.dead)","client_id":"cli","key_source":"machine"\#(profileExtra)}"#
        #expect(FileText.write(profile, to: state + "/profiles/default.json"))
        var metadata = ProviderMetadata(issuer: Self.dead)
        metadata.tokenEndpoint = Self.dead + "/token"
        metadata.endSessionEndpoint = endSession
        let now = Timestamp.now()
        let token = Token(
            accessToken: "access-token-1", tokenType: "Bearer", refreshToken: "refresh-token-1",
            expiresAt: now.addingTimeInterval(expiresIn), scope: "openid", idToken: "h.p.s")
        let session = StoredSession(
            profile: "default", issuer: Self.dead, clientID: "cli", token: token, subject: "u",
            idTokenClaimsJSON: #"{"sub":"u"}"#, metadata: metadata, createdAt: now, updatedAt: now)
        try EncryptedFileTokenStore(stateDirectory: state, profile: "default", keySource: .machine).save(session)
    }

    func input(_ text: String) -> [UInt8] { Array(text.utf8) }

    @Test func getAnswersForTheIssuersHostOnly() throws {
        try withCLI { cli, _ in
            try signIn(cli)
            let r = try cli.run(["credential", "get"], stdin: input("protocol=https\nhost=127.0.0.1:1\n\n"))
            #expect(r.exitCode == 0, "\(r)")
            let lines = r.stdoutText.split(separator: "\n").map(String.init)
            #expect(lines.count == 3 && lines[0] == "username=oauth2" && lines[1] == "password=access-token-1", "\(lines)")
            let expiry = Int64(lines[2].dropFirst("password_expiry_utc=".count)) ?? 0
            #expect(lines[2].hasPrefix("password_expiry_utc=") && abs(expiry - Timestamp.now().epochSeconds - 3600) < 120)
            for other in [
                "protocol=https\nhost=evil.example\n", "protocol=http\nhost=127.0.0.1:1\n",
                "protocol=https\nhost=127.0.0.1\n", "protocol=https\nhost=127.0.0.1:1\nurl=https://evil.example/x\n"
            ] {
                let none = try cli.run(["credential", "get"], stdin: input(other))
                #expect(none.exitCode == 0 && none.stdout.isEmpty, "\(other): \(none)")
            }
        }
    }

    @Test func configuredHostAndUsername() throws {
        try withCLI { cli, _ in
            try signIn(cli, profileExtra: #","credential_host":"git.example.com","credential_username":"bot""#)
            let r = try cli.run(["credential", "get"], stdin: input("protocol=https\nhost=Git.Example.com\n"))
            #expect(r.exitCode == 0 && r.stdoutText.hasPrefix("username=bot\npassword=access-token-1\n"), "\(r)")
            #expect(try cli.run(["credential", "get"], stdin: input("protocol=https\nhost=127.0.0.1:1\n")).stdout.isEmpty)
        }
    }

    @Test func badInputIsAUsageErrorAndNeverAToken() throws {
        try withCLI { cli, _ in
            try signIn(cli)
            for bad in [
                "protocol=https\nhost\n", "protocol=https\nhost=127.0.0.1:1\u{0}\n", "host=127.0.0.1:1\n",
                "protocol=https\n", "protocol https\nhost=127.0.0.1:1\n",
                "protocol=https\nhost=" + String(repeating: "a", count: 9000) + "\n"
            ] {
                let r = try cli.run(["credential", "get"], stdin: input(bad))
                #expect(r.exitCode == 2 && r.stdout.isEmpty && !r.stderr.isEmpty, "\(bad.prefix(40)): \(r)")
            }
            #expect(try cli.run(["credential", "fill"], stdin: input("")).exitCode == 2)
            #expect(try cli.run(["credential"], stdin: input("")).exitCode == 2)
        }
    }

    @Test func storeIsANoOpAndEraseMakesTheNextGetRefresh() throws {
        try withCLI { cli, _ in
            try signIn(cli)
            let request = "protocol=https\nhost=127.0.0.1:1\n"
            let stored = try cli.run(["credential", "store"], stdin: input(request + "username=oauth2\npassword=access-token-1\n"))
            #expect(stored.exitCode == 0 && stored.stdout.isEmpty)
            #expect(try cli.run(["credential", "get"], stdin: input(request)).exitCode == 0)
            // erase for another host, or for a password that is not the stored token, changes nothing.
            #expect(try cli.run(["credential", "erase"], stdin: input("protocol=https\nhost=evil.example\n")).exitCode == 0)
            #expect(try cli.run(["credential", "erase"], stdin: input(request + "password=other\n")).exitCode == 0)
            #expect(try cli.run(["credential", "get"], stdin: input(request)).stdoutText.contains("access-token-1"))
            let erased = try cli.run(["credential", "erase"], stdin: input(request + "password=access-token-1\n"))
            #expect(erased.exitCode == 0 && erased.stdout.isEmpty, "\(erased)")
            let after = try cli.run(["credential", "get"], stdin: input(request))
            #expect(after.exitCode == 6 && after.stdout.isEmpty, "the refresh went to the (closed) token endpoint: \(after)")
        }
    }

    @Test func logoutEndSessionPrintsTheURL() throws {
        try withCLI { cli, _ in
            try signIn(
                cli, profileExtra: #","post_logout_redirect_uri":"https://app.example/bye""#,
                endSession: "https://idp.example/logout")
            let r = try cli.run(["--json", "logout", "--no-revoke", "--end-session", "--no-qr"])
            #expect(r.exitCode == 0, "\(r)")
            let event = try JSONParser().parseObject(r.stdout)
            #expect(event["event"] == "end_session")
            let url = try #require(event["url"]?.stringValue)
            #expect(
                url.hasPrefix("https://idp.example/logout?client_id=cli&post_logout_redirect_uri=https%3A%2F%2Fapp.example%2Fbye&state="),
                "\(url)")
            #expect(!url.contains("id_token_hint"))
            #expect(r.stderrText.contains(url))
            #expect(!PackagePaths.exists(cli.stateDirectory + "/default.tokens"))
        }
        try withCLI { cli, _ in
            try signIn(cli, endSession: "https://idp.example/logout")
            let r = try cli.run(["--json", "logout", "--no-revoke", "--end-session", "--id-token-hint", "--qr"])
            let url = try #require(try JSONParser().parseObject(r.stdout)["url"]?.stringValue)
            #expect(url.hasPrefix("https://idp.example/logout?id_token_hint=h.p.s&client_id=cli&state="), "\(url)")
            #expect(r.stderrText.contains("scan this QR code"))
        }
    }

    @Test func logoutEndSessionWithoutAnEndpointStillLogsOut() throws {
        try withCLI { cli, _ in
            try signIn(cli)
            let r = try cli.run(["logout", "--no-revoke", "--end-session"])
            #expect(r.exitCode == 0 && r.stdout.isEmpty, "\(r)")
            #expect(r.stderrText.contains("no end_session_endpoint"))
            #expect(!PackagePaths.exists(cli.stateDirectory + "/default.tokens"))
        }
    }
}

/// `logout --end-session` and `credential get` against the scripted IdP: the URL comes from the
/// discovered metadata, revocation still happens, and a refresh behind `credential get` is real.
@Suite("latchkey binary: end session and credential against the scripted IdP")
struct EndSessionIdPProcessTests {
    @Test func endSessionURLFromDiscoveryAndRevocationStillHappens() throws {
        try withScriptedIdP("end-session", ["--approve-after", "1"]) { idp, cli in
            let login = try cli.run(
                [
                    "login", "--issuer", idp.issuer, "--client-id", "cli-test",
                    "--post-logout-redirect-uri", "http://127.0.0.1:9/bye"
                ], timeout: .seconds(60))
            #expect(login.exitCode == 0, "\(login)")
            let logout = try cli.run(["--json", "logout", "--end-session", "--id-token-hint"])
            #expect(logout.exitCode == 0, "\(logout)")
            let event = try JSONParser().parseObject(logout.stdout)
            let url = try #require(event["url"]?.stringValue)
            #expect(url.hasPrefix(idp.issuer + "/end_session?id_token_hint=ey"), "\(url)")
            #expect(url.contains("&client_id=cli-test&post_logout_redirect_uri=http%3A%2F%2F127.0.0.1%3A9%2Fbye&state="), "\(url)")
            #expect(idp.logLines().contains { $0.contains("/revoke") })
            #expect(try cli.run(["token"]).exitCode == 3)
        }
    }

    @Test func withoutEndSessionEndpointTheRestOfLogoutHappens() throws {
        try withScriptedIdP("ok", ["--approve-after", "1"]) { idp, cli in
            #expect(try cli.run(["login", "--issuer", idp.issuer, "--client-id", "cli-test"], timeout: .seconds(60)).exitCode == 0)
            let logout = try cli.run(["--json", "logout", "--end-session"])
            #expect(logout.exitCode == 0 && logout.stdout.isEmpty, "\(logout)")
            #expect(logout.stderrText.contains("no end_session_endpoint"))
            #expect(idp.logLines().contains { $0.contains("/revoke") })
        }
    }

    @Test func credentialGetRefreshesATokenThatIsAboutToExpire() throws {
        // Access tokens of 30 s: the standard margin is then 15 s (half the lifetime, cli.md), so
        // once less than that is left, `get` must refresh first.
        try withScriptedIdP("ok", ["--approve-after", "1", "--at-ttl", "30"]) { idp, cli in
            #expect(try cli.run(["login", "--issuer", idp.issuer, "--client-id", "cli-test"], timeout: .seconds(60)).exitCode == 0)
            let stored = try cli.run(["token"]).stdoutText.split(separator: "\n").first.map(String.init) ?? ""
            sleep(16)
            let refreshesBefore = idp.logLines().filter { $0.contains("refresh_token") }.count
            let host = "protocol=https\nhost=" + String(idp.issuer.dropFirst("http://".count)) + "\n"
            let answer = try cli.run(["credential", "get"], stdin: Array(host.utf8))
            #expect(answer.exitCode == 0, "\(answer)")
            let password = try #require(answer.stdoutLines.first { $0.hasPrefix("password=") })
            #expect(!stored.isEmpty && password != "password=" + stored, "the answer is a fresh token")
            #expect(idp.logLines().filter { $0.contains("refresh_token") }.count == refreshesBefore + 1)
        }
    }

    @Test func credentialGetRefreshesAnExpiredTokenAfterErase() throws {
        try withScriptedIdP("ok", ["--approve-after", "1"]) { idp, cli in
            #expect(try cli.run(["login", "--issuer", idp.issuer, "--client-id", "cli-test"], timeout: .seconds(60)).exitCode == 0)
            let host = "protocol=https\nhost=" + String(idp.issuer.dropFirst("http://".count)) + "\n"
            let first = try cli.run(["credential", "get"], stdin: Array(host.utf8))
            // The issuer is http://127.0.0.1:PORT, so the request for protocol=https and that host matches.
            #expect(first.exitCode == 0, "\(first)")
            let token = try #require(first.stdoutLines.first { $0.hasPrefix("password=") })
            let refreshesBefore = idp.logLines().filter { $0.contains("refresh_token") }.count
            #expect(try cli.run(["credential", "erase"], stdin: Array((host + token + "\n").utf8)).exitCode == 0)
            let second = try cli.run(["credential", "get"], stdin: Array(host.utf8))
            #expect(second.exitCode == 0, "\(second)")
            #expect(second.stdoutLines.first { $0.hasPrefix("password=") } != token, "a new token after erase")
            #expect(idp.logLines().filter { $0.contains("refresh_token") }.count == refreshesBefore + 1)
        }
    }
}
