import LatchkeyJOSE
import LatchkeyTestSupport
import Testing

/// DPoP (RFC 9449) through the binary against the scripted server, which verifies every proof
/// for real (Tests/Harness/scripted_idp.py) and logs what it checked.
@Suite("latchkey DPoP against the scripted server", .serialized)
struct DPoPProcessTests {
    /// Sends GET `url` with the header lines given (as `curl -H @FILE` would) and returns status and body.
    static func get(_ url: String, headers: String) throws -> (status: Int, body: String) {
        let script = """
            import sys, urllib.request, urllib.error
            req = urllib.request.Request(sys.argv[1])
            for line in sys.stdin.read().splitlines():
                if line.strip():
                    name, _, value = line.partition(": ")
                    req.add_header(name, value)
            try:
                r = urllib.request.urlopen(req); print(r.status); print(r.read().decode())
            except urllib.error.HTTPError as e:
                print(e.code); print(e.read().decode())
            """
        let result = try ProcessRunner.run("/usr/bin/python3", ["-c", script, url], stdin: Array(headers.utf8))
        let lines = result.stdoutLines
        return (Int(lines.first ?? "") ?? -1, lines.dropFirst().joined(separator: "\n"))
    }

    /// The log entries (one JSON object per request).
    static func log(_ idp: ScriptedIdP) throws -> [JSONObject] {
        try idp.logLines().map { try JSONParser().parseObject(Array($0.utf8)) }
    }

    static func login(_ cli: LatchkeyCommand, _ idp: ScriptedIdP, _ extra: [String] = []) throws -> ProcessResult {
        try cli.run(["login", "--json", "--issuer", idp.issuer, "--client-id", "cli-test"] + extra, timeout: .seconds(60))
    }

    @Test func boundLoginHeaderProofRefreshAndLogout() throws {
        try withScriptedIdP("dpop", ["--approve-after", "1"]) { idp, cli in
            let login = try Self.login(cli, idp)
            #expect(login.exitCode == 0, "\(login)")
            let authorized = try JSONParser().parseObject(Array(try #require(login.stdoutLines.last).utf8))
            #expect(authorized["token_binding"] == .string("dpop"))
            #expect(authorized.keys.last == "token_binding")
            let status = try JSONParser().parseObject(try cli.run(["status", "--json"]).stdout)
            #expect(status["token_binding"] == .string("dpop"))
            #expect(try cli.run(["status"]).stdoutText.contains("token binding: dpop"))

            // The device authorization request carries no proof; the token request one the server accepted.
            var log = try Self.log(idp)
            #expect(log.first { $0["path"] == .string("/device_authorization") }?["headers"]?["dpop"] == .bool(false))
            let issued = try #require(log.first { $0["event"] == .string("token-issued") })
            #expect(issued["dpop"]?["ok"] == .bool(true), "\(issued)")
            #expect(issued["dpop"]?["htu"] == .string(idp.issuer + "/token"))

            // A DPoP session's header needs the request; with it, two lines the resource accepts.
            let bare = try cli.run(["token", "--format", "header"])
            #expect(bare.exitCode == 2, "\(bare)")
            let before = idp.logLines().count
            let header = try cli.run(["token", "--format", "header", "--method", "GET", "--url", idp.issuer + "/resource?q=1"])
            #expect(header.exitCode == 0, "\(header)")
            #expect(idp.logLines().count == before, "a cached DPoP token made a request")
            #expect(header.stdoutLines.count == 2)
            #expect(header.stdoutLines.first?.hasPrefix("Authorization: DPoP ") == true)
            #expect(header.stdoutLines.last?.hasPrefix("DPoP: ") == true)
            let answer = try Self.get(idp.issuer + "/resource", headers: header.stdoutText)
            #expect(answer.status == 200, "\(answer)")
            // The same token without its proof is refused.
            #expect(try Self.get(idp.issuer + "/resource", headers: header.stdoutLines[0]).status == 401)

            // Refresh proves possession of the same key; proof prints a proof alone.
            #expect(try cli.run(["refresh"]).exitCode == 0)
            log = try Self.log(idp)
            let refreshed = try #require(log.last { $0["event"] == .string("refreshed") })
            #expect(refreshed["dpop"]?["jkt"] == issued["dpop"]?["jkt"])
            let token = try cli.run(["token"]).stdoutText.split(separator: "\n").first.map(String.init) ?? ""
            let proof = try cli.run(["proof", "--method", "GET", "--url", idp.issuer + "/resource"])
            #expect(proof.exitCode == 0 && proof.stdoutLines.count == 1, "\(proof)")
            #expect(
                try Self.get(idp.issuer + "/resource", headers: "Authorization: DPoP \(token)\nDPoP: \(proof.stdoutText)").status == 200)

            // The server checks htm and htu, and logs what it saw.
            let wrongMethod = try cli.run(["proof", "--method", "POST", "--url", idp.issuer + "/resource"]).stdoutText
            #expect(try Self.get(idp.issuer + "/resource", headers: "Authorization: DPoP \(token)\nDPoP: \(wrongMethod)").status == 401)
            let wrongURL = try cli.run(["proof", "--method", "GET", "--url", idp.issuer + "/elsewhere"]).stdoutText
            #expect(try Self.get(idp.issuer + "/resource", headers: "Authorization: DPoP \(token)\nDPoP: \(wrongURL)").status == 401)
            let reasons = try Self.log(idp).compactMap { $0["dpop"]?["reason"]?.stringValue }
            #expect(reasons.contains { $0.hasPrefix("htm 'POST'") }, "\(reasons)")
            #expect(reasons.contains { $0.hasPrefix("htu '\(idp.issuer)/elsewhere'") }, "\(reasons)")

            // Revocation carries proofs too; logout deletes the key with the file.
            #expect(try cli.run(["logout"]).exitCode == 0)
            let revokes = try Self.log(idp).filter { $0["path"] == .string("/revoke") }
            #expect(!revokes.isEmpty && revokes.allSatisfy { $0["dpop"]?["ok"] == .bool(true) })
            #expect(try cli.run(["proof", "--method", "GET", "--url", idp.issuer + "/resource"]).exitCode == 3)
        }
    }

    @Test func aTokenEndpointNonceIsTakenUpAndRemembered() throws {
        try withScriptedIdP("dpop-nonce-token", ["--approve-after", "1"]) { idp, cli in
            #expect(try Self.login(cli, idp).exitCode == 0)
            let first = try Self.log(idp).filter { $0["path"] == .string("/token") }
            #expect(first.first?["event"] == .string("dpop-use_dpop_nonce"), "\(first)")
            #expect(first.last?["event"] == .string("token-issued"))
            // The nonce is in the token file: the next process's refresh needs no challenge.
            let count = first.count
            #expect(try cli.run(["refresh"]).exitCode == 0)
            let after = try Self.log(idp).filter { $0["path"] == .string("/token") }.dropFirst(count)
            #expect(after.map { $0["event"] } == [.string("refreshed")], "\(after)")
        }
    }

    @Test(arguments: [
        ("dpop-nonce-twice", ["--dpop", "auto"]), ("dpop-bearer-answer", ["--dpop", "always"]),
        ("dpop-cnf-mismatch", ["--dpop", "auto"])
    ])
    func protocolViolationsExitSeven(scenario: String, options: [String]) throws {
        try withScriptedIdP(scenario, ["--approve-after", "1"]) { idp, cli in
            let result = try Self.login(cli, idp, options)
            #expect(result.exitCode == 7, "\(scenario): \(result)")
            expectErrorLines(result)
            #expect(try cli.run(["token"]).exitCode == 3, "\(scenario) saved a session")
            if scenario == "dpop-nonce-twice" {
                // Exactly one retry with the nonce, then the client stops.
                #expect(try Self.log(idp).filter { $0["path"] == .string("/token") }.count == 2)
            }
        }
    }

    @Test func autoAcceptsABearerAnswerAndProofThenRefusesWithTwo() throws {
        try withScriptedIdP("dpop-bearer-answer", ["--approve-after", "1"]) { idp, cli in
            let login = try Self.login(cli, idp)
            #expect(login.exitCode == 0, "\(login)")
            #expect(try cli.run(["status"]).stdoutText.contains("token binding: none"))
            #expect(try cli.run(["token", "--format", "header"]).stdoutText.hasPrefix("Authorization: Bearer "))
            #expect(try cli.run(["proof", "--method", "GET", "--url", idp.issuer + "/resource"]).exitCode == 2)
            #expect(try cli.run(["proof"]).exitCode == 2)
        }
    }

    @Test func neverSendsNoProofAndUnadvertisedDPoPIsNotUsedByAuto() throws {
        for (scenario, option) in [("dpop", "never"), ("dpop-unadvertised", "auto")] {
            try withScriptedIdP(scenario, ["--approve-after", "1"]) { idp, cli in
                #expect(try Self.login(cli, idp, ["--dpop", option]).exitCode == 0)
                #expect(try Self.log(idp).allSatisfy { $0["headers"]?["dpop"] == .bool(false) })
                #expect(try cli.run(["status"]).stdoutText.contains("token binding: none"))
                // The mode is remembered in the profile.
                let profile = try JSONParser().parseObject(
                    try ProcessRunner.run("/bin/cat", [cli.stateDirectory + "/profiles/default.json"]).stdout)
                #expect(profile["dpop"] == .string(option), "\(profile)")
            }
        }
    }

    @Test func offlineAccessWithoutDPoPWarnsOrIsRefused() throws {
        try withScriptedIdP("ok", ["--approve-after", "1"]) { idp, cli in
            let refused = try Self.login(cli, idp, ["--require-dpop-for-offline-access"])
            #expect(refused.exitCode == 2, "\(refused)")
            expectErrorLines(refused)
            #expect(!idp.logLines().contains { $0.contains("/device_authorization") }, "asked the person before refusing")
            let warned = try Self.login(cli, idp)
            #expect(warned.exitCode == 0, "\(warned)")
            // --json: an event, no human text.
            #expect(warned.stdoutLines.contains { $0.contains(#""code":"offline_access_unbound""#) } && warned.stderr.isEmpty, "\(warned)")
        }
        try withScriptedIdP("dpop", ["--approve-after", "1"]) { idp, cli in
            let bound = try Self.login(cli, idp, ["--require-dpop-for-offline-access"])
            #expect(bound.exitCode == 0 && !bound.stderrText.contains("warning"), "\(bound)")
        }
    }

    @Test func proofUsage() throws {
        try withCLI { cli, _ in
            let missing = try cli.run(["proof", "--method", "GET"])
            let plainHTTP = try cli.run(["proof", "--method", "GET", "--url", "http://example.com/x"])
            let notSignedIn = try cli.run(["proof", "--method", "GET", "--url", "https://example.com/x"])
            #expect(missing.exitCode == 2 && plainHTTP.exitCode == 2 && notSignedIn.exitCode == 3)
        }
    }
}
