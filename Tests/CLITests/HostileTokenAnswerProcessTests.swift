import FoundationEssentials
import Glibc
import Latchkey
import LatchkeyHTTP
import LatchkeyJOSE
import LatchkeyTestSupport
import Testing

/// What the binary does with token-endpoint answers that break RFC 6749 / RFC 8628 (issue 12):
/// a token outside VSCHAR never reaches stdout, and a polling error is reported by the server's code.
@Suite("latchkey binary: hostile token-endpoint answers", .serialized)
struct HostileTokenAnswerProcessTests {
    static let deadEndpoint = "http://127.0.0.1:1"

    func scripted(_ scenario: String, _ body: (ScriptedIdP, LatchkeyCommand) throws -> Void) throws {
        let idp = try ScriptedIdP(scenario: scenario, arguments: ["--interval", "1"])
        defer { idp.stop() }
        try withCLI { cli, _ in try body(idp, cli) }
    }

    /// The last JSON Lines event of a `login --json` run.
    func lastEvent(_ result: ProcessResult) throws -> JSONObject {
        try JSONParser().parseObject(Array(try #require(result.stdoutLines.last, "\(result)").utf8))
    }

    @Test func loginRefusesAnAccessTokenWithCRLF() throws {
        try scripted("access-token-crlf") { idp, cli in
            let login = try cli.run(["login", "--json", "--issuer", idp.issuer, "--client-id", "cli-test"], timeout: .seconds(60))
            #expect(login.exitCode == 7, "\(login)")
            let last = try lastEvent(login)
            #expect(last["event"] == "error" && last["error"] == "protocol_violation" && last["exit_code"]?.int64Value == 7, "\(last)")
            #expect(access(cli.stateDirectory + "/default.tokens", F_OK) != 0)
            let header = try cli.run(["token", "--format", "header"])
            #expect(header.exitCode == 3, "\(header)")
            #expect(!header.stdoutText.contains("X-Injected"), "\(header)")
        }
    }

    /// Writes a signed-in profile whose stored token is `token` (as an older latchkey, or another
    /// program using the library, could have saved it).
    func store(_ token: Token, in cli: LatchkeyCommand) throws {
        let state = cli.stateDirectory
        mkdir(state, 0o700)
        mkdir(state + "/profiles", 0o700)
        #expect(
            FileText.write(
                #"{"issuer":"\#(Self.deadEndpoint)","client_id":"cli","key_source":"machine"}"#,
                to: state + "/profiles/default.json"))
        var metadata = ProviderMetadata(issuer: Self.deadEndpoint)
        metadata.tokenEndpoint = Self.deadEndpoint + "/token"
        let now = Timestamp.now()
        let session = StoredSession(
            profile: "default", issuer: Self.deadEndpoint, clientID: "cli", token: token,
            subject: nil, idTokenClaimsJSON: nil, metadata: metadata, createdAt: now, updatedAt: now)
        try EncryptedFileTokenStore(stateDirectory: state, profile: "default", keySource: .machine).save(session)
    }

    @Test(arguments: [
        ("AT\r\nX-Injected: 1", "Bearer"), ("AT\u{1B}]0;owned\u{07}", "Bearer"), ("AT", "Bearer\r\nX-Injected: 1"),
        ("AT", "mac")
    ])
    func storedTokenOutsideVSCHARIsNeverPrinted(accessToken: String, tokenType: String) throws {
        try withCLI { cli, _ in
            try store(
                Token(
                    accessToken: accessToken, tokenType: tokenType, refreshToken: "rt",
                    expiresAt: Timestamp.now().addingTimeInterval(3600)), in: cli)
            for format in ["header", "bare", "json", "exec-credential"] {
                let result = try cli.run(["token", "--format", format])
                #expect(result.exitCode == 7, "\(format): \(result)")
                #expect(result.stdout.isEmpty, "\(format): \(result)")
                #expect(!result.stderrText.contains("X-Injected") && !result.stderrText.contains("owned"), "\(result)")
                expectErrorLines(result)
            }
        }
    }

    @Test func invalidGrantWhilePollingIsReportedAsInvalidGrant() throws {
        try scripted("invalid-grant-while-polling") { idp, cli in
            let login = try cli.run(["login", "--json", "--issuer", idp.issuer, "--client-id", "cli-test"], timeout: .seconds(60))
            #expect(login.exitCode == 5, "\(login)")
            let last = try lastEvent(login)
            #expect(last["event"] == "error", "\(last)")
            #expect(last["error"] == "invalid_grant", "\(last)")
            #expect(last["exit_code"]?.int64Value == 5, "\(last)")
        }
    }
}
