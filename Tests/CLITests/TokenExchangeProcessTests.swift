import Glibc
import LatchkeyJOSE
import LatchkeyTestSupport
import Testing

/// RFC 8693 through the binary against the scripted server, for what idpyoidc does not show: an
/// actor token (idpyoidc refuses them), a DPoP proof on the exchange, and the cache of 16 with its
/// seventeenth audience (Tests/Harness/scripted_idp.py, scenarios `token-exchange` and
/// `dpop-token-exchange`).
@Suite("latchkey exchange against the scripted server", .serialized)
struct TokenExchangeProcessTests {
    static func log(_ idp: ScriptedIdP) throws -> [JSONObject] {
        try idp.logLines().map { try JSONParser().parseObject(Array($0.utf8)) }
    }

    static func exchanges(_ idp: ScriptedIdP) throws -> [JSONObject] {
        try log(idp).filter { $0["event"] == .string("token-exchanged") }
    }

    static func login(_ cli: LatchkeyCommand, _ idp: ScriptedIdP) throws {
        let login = try cli.run(["login", "--json", "--issuer", idp.issuer, "--client-id", "cli-test"], timeout: .seconds(60))
        try #require(login.exitCode == 0, "\(login)")
    }

    /// The scripted server's fingerprint of a secret (`fingerprint` in scripted_idp.py).
    static func fingerprint(_ text: String) throws -> String {
        let r = try ProcessRunner.run(
            "/usr/bin/python3", ["-c", "import hashlib,sys; print('sha256:' + hashlib.sha256(sys.stdin.read().encode()).hexdigest()[:16])"],
            stdin: Array(text.utf8))
        return r.stdoutText.split(separator: "\n").first.map(String.init) ?? ""
    }

    @Test func anActorTokenIsSentAndNeverShown() throws {
        try withScriptedIdP("token-exchange", ["--approve-after", "1"]) { idp, cli in
            try Self.login(cli, idp)
            let actor = "eyJhbGciOiJFUzI1NiJ9.eyJzdWIiOiJhY3RvciJ9.YWN0b3Itc2lnbmF0dXJl"
            let path = cli.stateDirectory + "/../actor.jwt"
            let fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
            _ = Array((actor + "\n").utf8).withUnsafeBytes { Glibc.write(fd, $0.baseAddress, $0.count) }
            close(fd)
            let result = try cli.run([
                "-v", "exchange", "--audience", "api", "--actor-token-file", path, "--actor-token-type", "jwt", "--format", "json"
            ])
            #expect(result.exitCode == 0, "\(result)")
            let exchanged = try #require(try Self.exchanges(idp).last)
            #expect(exchanged["actor"] == .string(try Self.fingerprint(actor)))
            #expect(exchanged["actor_token_type"] == .string("urn:ietf:params:oauth:token-type:jwt"))
            #expect(exchanged["audiences"] == .array([.string("api")]))
            #expect(!result.stderrText.contains("YWN0b3Itc2lnbmF0dXJl") && !result.stdoutText.contains("YWN0b3Itc2lnbmF0dXJl"))
            // With an actor, nothing is cached: the same request is sent again.
            _ = try cli.run(["exchange", "--audience", "api", "--actor-token-file", path, "--actor-token-type", "jwt"])
            #expect(try Self.exchanges(idp).count == 2)
        }
    }

    @Test func theSeventeenthAudienceEvictsTheLeastRecentlyUsed() throws {
        try withScriptedIdP("token-exchange", ["--approve-after", "1"]) { idp, cli in
            try Self.login(cli, idp)
            func exchange(_ audience: String) throws {
                let r = try cli.run(["exchange", "--audience", audience])
                #expect(r.exitCode == 0, "\(r)")
            }
            for n in 0..<16 { try exchange("api-\(n)") }
            #expect(try Self.exchanges(idp).count == 16)
            try exchange("api-0")  // a hit, and a use: api-1 is now the least recently used
            #expect(try Self.exchanges(idp).count == 16)
            try exchange("api-16")  // the seventeenth: api-1 goes
            try exchange("api-0")
            #expect(try Self.exchanges(idp).count == 17)
            try exchange("api-1")
            #expect(try Self.exchanges(idp).count == 18)
            #expect(try Self.exchanges(idp).last?["audiences"] == .array([.string("api-1")]))
            // fetch --exchange-audience sends a cached exchanged token, not the session's own.
            let fetched = try cli.run(["fetch", "--exchange-audience", "api-1", idp.issuer + "/resource"])
            #expect(fetched.exitCode == 0, "\(fetched)")
            #expect(try Self.exchanges(idp).count == 18)
            // logout drops the cache with the session.
            #expect(try cli.run(["logout", "--no-revoke"]).exitCode == 0)
            #expect(try cli.run(["exchange", "--audience", "api-1"]).exitCode == 3)
        }
    }

    @Test func aDPoPBoundSessionProvesItsExchange() throws {
        try withScriptedIdP("dpop-token-exchange", ["--approve-after", "1"]) { idp, cli in
            try Self.login(cli, idp)
            let result = try cli.run(["exchange", "--audience", "api", "--format", "json"])
            #expect(result.exitCode == 0, "\(result)")
            let answer = try JSONParser().parseObject(result.stdout)
            #expect(answer["token_type"] == .string("DPoP"))
            let exchanged = try #require(try Self.exchanges(idp).last)
            #expect(exchanged["dpop"]?["ok"] == .bool(true), "\(exchanged)")
            #expect(exchanged["dpop"]?["htu"] == .string(idp.issuer + "/token"))
            let issued = try #require(try Self.log(idp).first { $0["event"] == .string("token-issued") })
            #expect(exchanged["jkt"] != nil && exchanged["jkt"] == issued["dpop"]?["jkt"], "the session's own key")
            // A DPoP-bound exchanged token is refused where only a Bearer header can carry it...
            #expect(try cli.run(["exchange", "--audience", "api", "--format", "header"]).exitCode == 2)
            // ... and fetch sends it with a proof the resource accepts.
            let fetched = try cli.run(["fetch", "--exchange-audience", "api", idp.issuer + "/resource"])
            #expect(fetched.exitCode == 0, "\(fetched)")
            #expect(try Self.exchanges(idp).count == 1, "the cached token was used")
        }
    }
}
