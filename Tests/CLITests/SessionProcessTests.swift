import FoundationEssentials
import Glibc
import Latchkey
import LatchkeyHTTP
import LatchkeyJOSE
import LatchkeyTestSupport
import Testing

/// Commands over a signed-in profile, with the session written through the storage API (no IdP):
/// the token endpoint points at a closed loopback port, so any network use fails with exit 6.
@Suite("latchkey binary: signed-in profile (stored session)")
struct SessionProcessTests {
    static let deadEndpoint = "http://127.0.0.1:1"

    /// Writes `profiles/default.json` and `default.tokens` the way `login` does.
    func signIn(_ cli: LatchkeyCommand, expiresIn: Double = 3600, idToken: Bool = true) throws {
        let state = cli.stateDirectory
        mkdir(state, 0o700)
        mkdir(state + "/profiles", 0o700)
        let profile = #"{"issuer":"\#(Self.deadEndpoint)","client_id":"cli","key_source":"machine"}"#
        #expect(FileText.write(profile, to: state + "/profiles/default.json"))
        var metadata = ProviderMetadata(issuer: Self.deadEndpoint)
        metadata.tokenEndpoint = Self.deadEndpoint + "/token"
        metadata.revocationEndpoint = Self.deadEndpoint + "/revoke"
        let now = Timestamp.now()
        let token = Token(
            accessToken: "access-token-1", tokenType: "Bearer", refreshToken: "refresh-token-1",
            expiresAt: now.addingTimeInterval(expiresIn), scope: "openid offline_access",
            idToken: idToken ? "eyJhbGciOiJFUzI1NiJ9.eyJzdWIiOiJ1c2VyLTEifQ.c2ln" : nil)
        let session = StoredSession(
            profile: "default", issuer: Self.deadEndpoint, clientID: "cli", token: token,
            subject: idToken ? "user-1" : nil,
            idTokenClaimsJSON: idToken ? #"{"iss":"\#(Self.deadEndpoint)","sub":"user-1","aud":"cli"}"# : nil,
            metadata: metadata, createdAt: now, updatedAt: now)
        try EncryptedFileTokenStore(stateDirectory: state, profile: "default", keySource: .machine).save(session)
    }

    @Test func tokenFormats() throws {
        try withCLI { cli, _ in
            try signIn(cli)
            let bare = try cli.run(["token"])
            #expect(bare.exitCode == 0, "\(bare)")
            #expect(bare.stdoutText == "access-token-1\n")
            #expect(bare.stderr.isEmpty)
            #expect(try cli.run(["token", "--format", "header"]).stdoutText == "Authorization: Bearer access-token-1\n")
            let json = try JSONParser().parseObject(try cli.run(["token", "--format=json"]).stdout)
            #expect(json.keys == ["access_token", "token_type", "expires_at", "scope"])
            #expect(json["access_token"] == "access-token-1" && json["scope"] == "openid offline_access")
            #expect(try cli.run(["--json", "token"]).stdoutText.hasPrefix("{\"access_token\""))
        }
    }

    /// The fields client-go reads from an exec plugin (k8s.io/client-go/pkg/apis/clientauthentication/v1).
    @Test func execCredentialSchema() throws {
        try withCLI { cli, _ in
            try signIn(cli)
            let result = try cli.run(["token", "--format", "exec-credential"])
            #expect(result.exitCode == 0)
            let object = try JSONParser().parseObject(result.stdout)
            #expect(Set(object.keys) == ["apiVersion", "kind", "status"])
            #expect(object["apiVersion"] == "client.authentication.k8s.io/v1")
            #expect(object["kind"] == "ExecCredential")
            let status = try #require(object["status"]?.objectValue)
            #expect(Set(status.keys).isSubset(of: ["token", "expirationTimestamp", "clientCertificateData", "clientKeyData"]))
            #expect(status["token"] == "access-token-1")
            let timestamp = try #require(status["expirationTimestamp"]?.stringValue)
            // RFC 3339 as Go's time.Time unmarshals it: YYYY-MM-DDTHH:MM:SSZ.
            let shape = Array(timestamp.utf8)
            #expect(shape.count == 20 && shape[4] == 0x2D && shape[10] == 0x54 && shape[19] == 0x5A, "\(timestamp)")
            let expires = try #require(RFC3339Reference.parse(timestamp))
            #expect(abs(expires - (Timestamp.now().timeIntervalSince1970 + 3600)) < 120)
        }
    }

    @Test func idTokenClaimsStatusProfiles() throws {
        try withCLI { cli, _ in
            try signIn(cli)
            #expect(try cli.run(["id-token"]).stdoutText == "eyJhbGciOiJFUzI1NiJ9.eyJzdWIiOiJ1c2VyLTEifQ.c2ln\n")
            for command in ["claims", "whoami"] {
                let claims = try JSONParser().parseObject(try cli.run([command]).stdout)
                #expect(claims["sub"] == "user-1")
            }
            let status = try cli.run(["status", "--json"])
            #expect(status.exitCode == 0)
            let object = try JSONParser().parseObject(status.stdout)
            #expect(object["signed_in"] == .bool(true) && object["subject"] == "user-1")
            #expect(object["refresh_token"] == .bool(true) && object["key_source"] == "machine")
            #expect(object["access_token_valid"] == .bool(true))
            let human = try cli.run(["status"])
            #expect(human.exitCode == 0 && human.stdoutText.contains("user-1") && human.stdoutText.contains("refresh token: held"))
            #expect(!human.stdoutText.contains("access-token-1") && !human.stdoutText.contains("refresh-token-1"))
            let profiles = try JSONParser().parse(try cli.run(["profiles", "--json"]).stdout)
            let row = try #require(profiles.arrayValue?.first?.objectValue)
            #expect(row["profile"] == "default" && row["subject"] == "user-1" && row["signed_in"] == .bool(true))
        }
    }

    @Test func noIDTokenExitsThree() throws {
        try withCLI { cli, _ in
            try signIn(cli, idToken: false)
            #expect(try cli.run(["id-token"]).exitCode == 3)
            #expect(try cli.run(["claims"]).exitCode == 3)
            #expect(try cli.run(["token"]).exitCode == 0)
        }
    }

    @Test func expiredTokenAndServerUnreachableExitsSix() throws {
        try withCLI { cli, _ in
            try signIn(cli, expiresIn: -10)
            let result = try cli.run(["token"], timeout: .seconds(60))
            #expect(result.exitCode == 6, "\(result)")
            #expect(result.stdout.isEmpty)
            expectErrorLines(result)
            #expect(try cli.run(["token", "--force-refresh"]).exitCode == 6)
            #expect(try cli.run(["refresh"]).exitCode == 6)
        }
    }

    @Test func earlyRefreshThatFailsStillServesTheValidToken() throws {
        try withCLI { cli, _ in
            try signIn(cli, expiresIn: 30)  // inside the default --min-ttl of 60 s, but not expired
            // The library tries to refresh, cannot reach the server, and keeps the unexpired token.
            let result = try cli.run(["token"], timeout: .seconds(60))
            #expect(result.exitCode == 0, "\(result)")
            #expect(result.stdoutText == "access-token-1\n")
            // A lower --min-ttl accepts the cached token without trying the network at all.
            #expect(try cli.run(["token", "--min-ttl", "10"]).stdoutText == "access-token-1\n")
        }
    }

    @Test func tamperedTokenFileExitsNine() throws {
        try withCLI { cli, _ in
            try signIn(cli)
            let path = cli.stateDirectory + "/default.tokens"
            let fd = open(path, O_RDWR)
            #expect(fd >= 0)
            var byte: UInt8 = 0
            let offset = off_t(lseek(fd, 0, SEEK_END) - 5)
            _ = pread(fd, &byte, 1, offset)
            byte ^= 0x01
            _ = pwrite(fd, &byte, 1, offset)
            close(fd)
            let result = try cli.run(["token"])
            #expect(result.exitCode == 9, "\(result)")
            expectErrorLines(result)
            #expect(try cli.run(["status"]).exitCode == 9)
        }
    }

    @Test func unsafePermissionsExitNine() throws {
        try withCLI { cli, _ in
            try signIn(cli)
            chmod(cli.stateDirectory + "/default.tokens", 0o644)
            let result = try cli.run(["token"])
            #expect(result.exitCode == 9, "\(result)")
            #expect(result.stderrText.contains("chmod"))
        }
    }

    @Test func profileFileOpenToOthersOrSymlinkedExitsNine() throws {
        try withCLI { cli, _ in
            try signIn(cli)
            let profile = cli.stateDirectory + "/profiles/default.json"
            var info = stat()
            #expect(stat(profile, &info) == 0 && info.st_mode & 0o777 == 0o600, "profile written 0600")
            chmod(profile, 0o644)
            let readable = try cli.run(["token"])
            #expect(readable.exitCode == 9, "\(readable)")
            #expect(readable.stderrText.contains("chmod"))
            chmod(profile, 0o600)
            #expect(rename(profile, profile + ".real") == 0)
            #expect(symlink(profile + ".real", profile) == 0)
            let linked = try cli.run(["token"])
            #expect(linked.exitCode == 9, "\(linked)")
            #expect(linked.stderrText.contains("symbolic link"))
        }
    }

    @Test func logoutWithoutRevocationDeletesTheFile() throws {
        try withCLI { cli, _ in
            try signIn(cli)
            let result = try cli.run(["logout", "--no-revoke"])
            #expect(result.exitCode == 0, "\(result)")
            #expect(access(cli.stateDirectory + "/default.tokens", F_OK) != 0)
            #expect(access(cli.stateDirectory + "/profiles/default.json", F_OK) == 0)
            #expect(try cli.run(["token"]).exitCode == 3)
        }
    }

    @Test func logoutWhenRevocationFailsStillDeletesAndWarns() throws {
        try withCLI { cli, _ in
            try signIn(cli)
            let result = try cli.run(["logout"], timeout: .seconds(60))
            #expect(result.exitCode == 0, "\(result)")
            #expect(result.stderrText.contains("warning"))
            #expect(access(cli.stateDirectory + "/default.tokens", F_OK) != 0)
        }
    }
}

/// An independent RFC 3339 reader for the checks above (seconds since the epoch), so the test
/// does not grade the CLI's formatter with itself.
enum RFC3339Reference {
    static func parse(_ text: String) -> Double? {
        let parts = text.split(whereSeparator: { "-T:Z".contains($0) }).compactMap { Int($0) }
        guard parts.count == 6 else { return nil }
        var (y, m) = (parts[0], parts[1])
        if m <= 2 { y -= 1; m += 12 }
        // Days from 1970-01-01 by the Gregorian day-count formula counted from March.
        let days = 365 * y + y / 4 - y / 100 + y / 400 + (153 * (m - 3) + 2) / 5 + parts[2] - 719_469
        return Double(days * 86_400 + parts[3] * 3600 + parts[4] * 60 + parts[5])
    }
}
