import Glibc
import LatchkeyJOSE
import LatchkeyTestSupport
import Testing

/// `latchkey fetch` through the binary against the scripted server (Tests/Harness/scripted_idp.py),
/// which logs what every request carried.
@Suite("latchkey fetch against the scripted server", .serialized)
struct FetchProcessTests {
    static func log(_ idp: ScriptedIdP) throws -> [JSONObject] {
        try idp.logLines().map { try JSONParser().parseObject(Array($0.utf8)) }
    }

    static func login(_ cli: LatchkeyCommand, _ idp: ScriptedIdP) throws {
        let result = try cli.run(["login", "--json", "--issuer", idp.issuer, "--client-id", "cli-test"], timeout: .seconds(60))
        #expect(result.exitCode == 0, "\(result)")
    }

    static func refreshes(_ idp: ScriptedIdP) throws -> Int {
        try log(idp).filter { $0["path"] == .string("/token") && $0["params"]?["grant_type"] == .string("refresh_token") }.count
    }

    /// A folder next to the state directory for test files.
    static func scratch(_ cli: LatchkeyCommand) -> String { PackagePaths.parent(of: cli.stateDirectory) }

    @Test func bearerGetPrintsTheBodyAndExitsZero() throws {
        try withScriptedIdP("ok", ["--approve-after", "1"]) { idp, cli in
            try Self.login(cli, idp)
            let result = try cli.run(["fetch", idp.issuer + "/resource"])
            #expect(result.exitCode == 0, "\(result)")
            #expect(result.stdoutText == #"{"resource": "scripted", "subject": "scripted-user-1"}"#)
            let hit = try #require(try Self.log(idp).last { $0["path"] == .string("/resource") })
            #expect(hit["headers"]?["authorization"] == .string("Bearer"))
            #expect(try Self.refreshes(idp) == 0)
        }
    }

    @Test func errorStatusExitsTenWithTheBody() throws {
        try withScriptedIdP("ok", ["--approve-after", "1"]) { idp, cli in
            try Self.login(cli, idp)
            let result = try cli.run(["fetch", idp.issuer + "/echo?status=404"])
            #expect(result.exitCode == 10, "\(result)")
            #expect(result.stdoutText.contains(#""method": "GET""#), "\(result)")
            // One stderr line for cron logs: the status and the URL, not the body.
            #expect(result.stderrText == "latchkey: HTTP 404 from \(idp.issuer)/echo?status=404\n", "\(result.stderrText)")
            let secret = try cli.run([
                "fetch", "--output", Self.scratch(cli) + "/e.json", idp.issuer + "/echo?status=500&access_token=s3cret"
            ])
            #expect(secret.exitCode == 10)
            #expect(
                secret.stderrText == "latchkey: HTTP 500 from \(idp.issuer)/echo?status=500&access_token=[REDACTED]\n",
                "\(secret.stderrText)")
            let quiet = try cli.run(["-q", "fetch", idp.issuer + "/echo?status=404"])
            #expect(quiet.exitCode == 10 && quiet.stderrText.isEmpty, "\(quiet.stderrText)")
            let fine = try cli.run(["fetch", idp.issuer + "/echo?status=201"])
            #expect(fine.exitCode == 0 && fine.stderrText.isEmpty, "\(fine.stderrText)")
        }
    }

    /// RFC 9110 §9.1: methods are case-sensitive, so `-X get` is sent as `get` in the request line,
    /// and a method outside GET/POST is sent as given; what is not a token is exit 2.
    @Test func theMethodIsSentAsGivenAndANonTokenIsAUsageError() throws {
        try withScriptedIdP("ok", ["--approve-after", "1"]) { idp, cli in
            try Self.login(cli, idp)
            for method in ["get", "M-SEARCH", "Patch"] {
                let result = try cli.run(["fetch", "-X", method, idp.issuer + "/method"])
                #expect(result.exitCode == 0, "\(method): \(result) \(result.stderrText)")
                #expect(result.stdoutText == #"{"method": "\#(method)", "dpop": false}"#, "\(method): \(result)")
            }
            #expect(
                try Self.log(idp).filter { $0["path"] == .string("/method") }.map { $0["method"] }
                    == [.string("get"), .string("M-SEARCH"), .string("Patch")])
            for method in ["GE T", "", "GET/1", "a:b"] {
                let result = try cli.run(["fetch", "-X", method, idp.issuer + "/method"])
                #expect(result.exitCode == 2, "\(method): \(result)")
                #expect(
                    result.stderrText.split(separator: "\n").first
                        == "latchkey: -X must be an HTTP method such as GET or POST, got '\(method)'", "\(result.stderrText)")
            }
            #expect(try Self.log(idp).filter { $0["path"] == .string("/method") }.count == 3, "a refused method was sent")
        }
    }

    /// `fetch -X get` with a DPoP-bound token: the proof's `htm` and the request line are one value.
    @Test func aDPoPProofCarriesTheMethodOfTheRequestLine() throws {
        try withScriptedIdP("dpop", ["--approve-after", "1"]) { idp, cli in
            try Self.login(cli, idp)
            for method in ["get", "GET", "delete"] {
                let result = try cli.run(["fetch", "-X", method, idp.issuer + "/method"])
                #expect(result.exitCode == 0, "\(method): \(result) \(result.stderrText)")
                #expect(result.stdoutText == #"{"method": "\#(method)", "dpop": true}"#, "\(method): \(result)")
            }
            let hits = try Self.log(idp).filter { $0["path"] == .string("/method") }
            #expect(hits.map { $0["dpop"]?["htm"] } == [.string("get"), .string("GET"), .string("delete")], "\(hits)")
            #expect(hits.allSatisfy { $0["dpop"]?["ok"] == .bool(true) }, "\(hits)")
        }
    }

    @Test func invalidTokenOnceRefreshesOnceAndSucceeds() throws {
        try withScriptedIdP("resource-rejects-first", ["--approve-after", "1"]) { idp, cli in
            try Self.login(cli, idp)
            let result = try cli.run(["fetch", idp.issuer + "/resource"])
            #expect(result.exitCode == 0, "\(result)")
            #expect(result.stdoutText.contains("scripted-user-1"))
            #expect(try Self.refreshes(idp) == 1)
            #expect(try Self.log(idp).filter { $0["path"] == .string("/resource") }.count == 2)
        }
    }

    @Test func invalidTokenTwiceRefreshesOnceThenExitsTen() throws {
        try withScriptedIdP("resource-rejects-always", ["--approve-after", "1"]) { idp, cli in
            try Self.login(cli, idp)
            let result = try cli.run(["fetch", idp.issuer + "/resource"])
            #expect(result.exitCode == 10, "\(result)")
            #expect(result.stdoutText == #"{"error":"invalid_token"}"#, "\(result)")
            #expect(try Self.refreshes(idp) == 1)
            #expect(try Self.log(idp).filter { $0["path"] == .string("/resource") }.count == 2)
        }
    }

    @Test func dpopBoundFetchSendsAProofWithAth() throws {
        try withScriptedIdP("dpop-nonce-resource", ["--approve-after", "1"]) { idp, cli in
            try Self.login(cli, idp)
            let result = try cli.run(["fetch", idp.issuer + "/resource"])
            #expect(result.exitCode == 0, "\(result)")
            #expect(result.stdoutText.contains("scripted-user-1"), "\(result)")
            let hits = try Self.log(idp).filter { $0["path"] == .string("/resource") }
            // The first proof is challenged for a nonce (401 use_dpop_nonce), the retry carries it.
            #expect(hits.count == 2, "\(hits)")
            #expect(hits.last?["headers"]?["authorization"] == .string("DPoP"))
            #expect(hits.last?["dpop"]?["ok"] == .bool(true), "\(hits)")
        }
    }

    @Test func sameOriginRedirectsAreFollowedUpToThree() throws {
        try withScriptedIdP("ok", ["--approve-after", "1"]) { idp, cli in
            try Self.login(cli, idp)
            let three = try cli.run(["fetch", idp.issuer + "/redirect?hops=3"])
            #expect(three.exitCode == 0, "\(three)")
            #expect(three.stdoutText.contains("scripted-user-1"), "\(three)")
            let hops = try Self.log(idp).filter { $0["path"] == .string("/redirect") }
            #expect(hops.count == 3)
            #expect(hops.allSatisfy { $0["headers"]?["authorization"] == .string("Bearer") })
            // A fourth is not followed: the 302 is the answer, reported on stderr.
            let four = try cli.run(["fetch", idp.issuer + "/redirect?hops=4"])
            #expect(four.exitCode == 0, "\(four)")
            #expect(four.stdoutText == "moved")
            #expect(four.stderrText.contains("not following the 302 redirect"), "\(four)")
        }
    }

    @Test func crossOriginRedirectIsNotFollowedAndGetsNoToken() throws {
        let other = try ScriptedIdP(scenario: "ok")
        defer { other.stop() }
        try withScriptedIdP("dpop", ["--approve-after", "1"]) { idp, cli in
            try Self.login(cli, idp)
            let result = try cli.run(["fetch", idp.issuer + "/redirect?to=" + other.issuer + "/resource"])
            #expect(result.exitCode == 0, "\(result)")
            #expect(result.stdoutText == "moved")
            #expect(result.stderrText.contains("not following the 302 redirect to \(other.issuer) (another origin)"), "\(result)")
            let first = try #require(try Self.log(idp).last { $0["path"] == .string("/redirect") })
            #expect(first["headers"]?["authorization"] == .string("DPoP"))
            #expect(first["headers"]?["dpop"] == .bool(true))
            // The other server saw nothing at all — so certainly no Authorization or DPoP.
            #expect(other.logLines().isEmpty, "\(other.logLines())")
        }
        // And when a client does reach it (here: directly), the log does show those headers, so the
        // check above could fail.
        let probe = try ProcessRunner.run(
            "/usr/bin/curl", ["-s", "-H", "Authorization: Bearer x", "-H", "DPoP: y", other.issuer + "/resource"])
        #expect(probe.exitCode != nil)
        let seen = try JSONParser().parseObject(Array(try #require(other.logLines().last).utf8))
        #expect(seen["headers"]?["authorization"] == .string("Bearer"))
        #expect(seen["headers"]?["dpop"] == .bool(true))
    }

    @Test func largeBinaryBodyArrivesIntact() throws {
        try withScriptedIdP("ok", ["--approve-after", "1"]) { idp, cli in
            try Self.login(cli, idp)
            let size = 5 * 1024 * 1024
            let result = try cli.run(["fetch", idp.issuer + "/large?mib=5"], timeout: .seconds(120))
            #expect(result.exitCode == 0, "\(result.stderrText)")
            #expect(result.stdout.count == size)
            var mismatches = 0
            for (i, byte) in result.stdout.enumerated() where byte != UInt8(i % 251) { mismatches += 1 }
            #expect(mismatches == 0)
            // Above the limit (64 MiB) the response is refused, not truncated: nothing on stdout.
            let over = try cli.run(["fetch", idp.issuer + "/large?mib=65"], timeout: .seconds(120))
            #expect(over.exitCode != 0 && over.exitCode != 10, "\(over.stderrText)")
            #expect(over.stdout.isEmpty)
        }
    }

    @Test func droppedConnectionExitsSix() throws {
        try withScriptedIdP("ok", ["--approve-after", "1"]) { idp, cli in
            try Self.login(cli, idp)
            let result = try cli.run(["fetch", idp.issuer + "/drop"])
            #expect(result.exitCode == 6, "\(result)")
            #expect(result.stdout.isEmpty)
            expectErrorLines(result)
        }
    }

    @Test func authorizationOrDPoPHeaderIsAUsageError() throws {
        try withScriptedIdP("ok", ["--approve-after", "1"]) { idp, cli in
            try Self.login(cli, idp)
            let before = idp.logLines().count
            for header in ["Authorization: Bearer mine", "dpop: x", "AUTHORIZATION:x"] {
                let result = try cli.run(["fetch", "-H", header, idp.issuer + "/resource"])
                #expect(result.exitCode == 2, "\(header): \(result)")
                #expect(result.stdout.isEmpty)
            }
            for bad in ["no colon", "Bad Name: x", "X-Ok: a\u{1B}b"] {
                #expect(try cli.run(["fetch", "-H", bad, idp.issuer + "/resource"]).exitCode == 2, "\(bad)")
            }
            #expect(idp.logLines().count == before, "nothing is sent")
        }
    }

    @Test func dataFromStringFileAndStdinWithHeadersAndMethod() throws {
        try withScriptedIdP("ok", ["--approve-after", "1"]) { idp, cli in
            try Self.login(cli, idp)
            let string = try cli.run(["fetch", "--data", "a=b", "-H", "X-Test: one", "-H", "X-Other: two", idp.issuer + "/echo"])
            #expect(string.exitCode == 0, "\(string)")
            let echoed = try JSONParser().parseObject(string.stdout)
            #expect(echoed["method"] == .string("POST"))
            #expect(echoed["body"] == .string("a=b"))
            #expect(echoed["content_type"] == .string("application/x-www-form-urlencoded"))
            #expect(echoed["x_test"] == .string("one"))

            let file = Self.scratch(cli) + "/body.json"
            #expect(FileText.write(#"{"k":1}"#, to: file))
            let fromFile = try cli.run([
                "fetch", "-X", "PUT", "-H", "Content-Type: application/json", "--data", "@" + file, idp.issuer + "/echo"
            ])
            let fileEcho = try JSONParser().parseObject(fromFile.stdout)
            #expect(fileEcho["method"] == .string("PUT"))
            #expect(fileEcho["body"] == .string(#"{"k":1}"#))
            #expect(fileEcho["content_type"] == .string("application/json"))

            let fromStdin = try cli.run(["fetch", "--data", "@-", idp.issuer + "/echo"], stdin: Array("from stdin".utf8))
            #expect(try JSONParser().parseObject(fromStdin.stdout)["body"] == .string("from stdin"))

            #expect(try cli.run(["fetch", "--data", "@" + file + ".missing", idp.issuer + "/echo"]).exitCode == 2)
        }
    }

    @Test func includeAndOutput() throws {
        try withScriptedIdP("ok", ["--approve-after", "1"]) { idp, cli in
            try Self.login(cli, idp)
            let included = try cli.run(["fetch", "--include", idp.issuer + "/echo?status=201"])
            #expect(included.exitCode == 0)
            let text = included.stdoutText
            #expect(text.hasPrefix("HTTP/1.1 201\r\n"), "\(text)")
            #expect(text.contains("\r\nX-Echo: yes\r\n"))
            #expect(text.contains("\r\n\r\n{\"method\": \"GET\""))

            let path = Self.scratch(cli) + "/out.json"
            let saved = try cli.run(["fetch", "--output", path, idp.issuer + "/resource"])
            #expect(saved.exitCode == 0, "\(saved)")
            #expect(saved.stdout.isEmpty)
            #expect(FileText.read(path) == #"{"resource": "scripted", "subject": "scripted-user-1"}"#)
            var info = stat()
            #expect(stat(path, &info) == 0)
            #expect(info.st_mode & 0o777 == 0o600)
            // An error answer is still written, and exits 10.
            #expect(try cli.run(["fetch", "--output", path, idp.issuer + "/echo?status=500"]).exitCode == 10)
            #expect(FileText.read(path)?.contains(#""method": "GET""#) == true)
        }
    }

    /// Without a session the request goes without a token (cli.md: a resource may name its issuer):
    /// a bare 401 is "not signed in".
    @Test func notSignedInExitsThree() throws {
        try withScriptedIdP("ok", ["--approve-after", "1"]) { idp, cli in
            let result = try cli.run(["fetch", idp.issuer + "/resource"])
            #expect(result.exitCode == 3, "\(result)")
        }
    }

    @Test func verboseRedactsTheTokenAndProof() throws {
        try withScriptedIdP("dpop", ["--approve-after", "1"]) { idp, cli in
            try Self.login(cli, idp)
            let token = try cli.run(["token"]).stdoutLines.first ?? ""
            let result = try cli.run(["--verbose", "fetch", idp.issuer + "/resource"])
            #expect(result.exitCode == 0, "\(result)")
            #expect(result.stderrText.contains("> Authorization: DPoP [REDACTED]"), "\(result.stderrText)")
            #expect(result.stderrText.contains("> DPoP: [REDACTED]"), "\(result.stderrText)")
            #expect(!token.isEmpty && !result.stderrText.contains(token))
        }
    }
}
