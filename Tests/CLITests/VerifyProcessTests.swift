import Glibc
import LatchkeyJOSE
import LatchkeyTestSupport
import Testing

@Suite("latchkey verify (process)")
struct VerifyProcessTests {
    /// A state dir, a JWKS file and a minter.
    func setUp(_ body: (LatchkeyCommand, String, TokenMinter) throws -> Void) throws {
        try withCLI { cli, dir in
            let minter = try TokenMinter()
            let jwks = dir.path + "/jwks.json"
            #expect(FileText.write(minter.jwksJSON, to: jwks))
            try body(cli, jwks, minter)
        }
    }

    @Test func validTokenPrintsHeaderAndClaims() throws {
        try setUp { cli, jwks, minter in
            let token = try minter.mint(TokenMinter.claims(now: TokenMinter.now))
            let result = try cli.run(["verify", "--jwks", jwks, "--audience", "cli", "--issuer", "https://idp.example", token])
            #expect(result.exitCode == 0, "\(result)")
            let object = try JSONParser().parseObject(result.stdout)
            #expect(object.keys == ["header", "claims"])
            #expect(object["header"]?["alg"] == "ES256")
            #expect(object["header"]?["kid"] == "test-key")
            #expect(object["claims"]?["sub"] == "user-1")
        }
    }

    @Test func tokenFromStandardInput() throws {
        try setUp { cli, jwks, minter in
            let token = try minter.mint(TokenMinter.claims(now: TokenMinter.now))
            for arguments in [["verify", "--jwks", jwks, "-"], ["verify", "--jwks", jwks]] {
                let result = try cli.run(arguments, stdin: Array((token + "\n").utf8))
                #expect(result.exitCode == 0, "\(arguments): \(result)")
                #expect(try JSONParser().parseObject(result.stdout)["claims"]?["iss"] == "https://idp.example")
            }
        }
    }

    @Test func failuresExitEight() throws {
        try setUp { cli, jwks, minter in
            let now = TokenMinter.now
            let other = try TokenMinter()
            let expired = try minter.mint(TokenMinter.claims(now: now - 7200))
            let cases: [(String, [String])] = [
                (try other.mint(TokenMinter.claims(now: now)), []),  // signed by another key
                (expired, []),  // expired
                (try minter.mint(TokenMinter.claims(now: now)), ["--audience", "someone-else"]),  // audience
                (try minter.mint(TokenMinter.claims(now: now)), ["--issuer", "https://evil.example"]),
                (try minter.mint(TokenMinter.claims(now: now)), ["--alg", "RS256"]),  // alg not allowed
                (try minter.mint(TokenMinter.claims(now: now + 3600)), []),  // iat in the future
                ("not.a.jwt", []),
                ("eyJhbGciOiJub25lIn0.eyJzdWIiOiJ4In0.", [])  // alg none
            ]
            for (token, extra) in cases {
                let result = try cli.run(["verify", "--jwks", jwks] + extra + [token])
                #expect(result.exitCode == 8, "\(extra): \(result)")
                #expect(result.stdout.isEmpty)
                // After the warnings (token on argv; no --audience) comes the error line.
                let error = result.stderrText.split(separator: "\n").first { !$0.hasPrefix("latchkey: warning: ") }
                #expect(error?.hasPrefix("latchkey: token verification failed: ") == true, "\(result.stderrText)")
            }
        }
    }

    @Test func timeOptions() throws {
        try setUp { cli, jwks, minter in
            let issuedAt: Int64 = 1_767_268_800  // 2026-01-01T12:00:00Z
            let token = try minter.mint(TokenMinter.claims(now: issuedAt))
            #expect(try cli.run(["verify", "--jwks", jwks, token]).exitCode == 8)
            #expect(try cli.run(["verify", "--jwks", jwks, "--at", "2026-01-01T12:05:00Z", token]).exitCode == 0)
            #expect(try cli.run(["verify", "--jwks", jwks, "--at", String(issuedAt + 300), token]).exitCode == 0)
            #expect(try cli.run(["verify", "--jwks", jwks, "--at", "2026-01-01T12:10:59Z", token]).exitCode == 0)  // leeway 60
            #expect(try cli.run(["verify", "--jwks", jwks, "--at", "2026-01-01T12:11:01Z", token]).exitCode == 8)
            #expect(try cli.run(["verify", "--jwks", jwks, "--leeway", "0", "--at", "2026-01-01T12:10:01Z", token]).exitCode == 8)
            #expect(try cli.run(["verify", "--jwks", jwks, "--no-time-check", token]).exitCode == 0)
        }
    }

    /// The shared boundary table (Tests/Support/TimeClaimBoundaries.swift), which the library's
    /// IDTokenVerifier runs too (IDTokenVerifierTests): the same verdict at every boundary.
    @Test(arguments: TimeClaimBoundaries.cases)
    func timeClaimBoundaries(_ boundary: TimeClaimBoundaries.Case) throws {
        try setUp { cli, jwks, minter in
            let now: Int64 = 1_767_268_800
            var claims = TokenMinter.claims(now: now)
            for (name, number) in boundary.claims(now: now) { claims[name] = .number(number) }
            let token = try minter.mint(claims)
            let result = try cli.run(
                [
                    "verify", "--jwks", jwks, "--audience", "cli", "--issuer", "https://idp.example",
                    "--leeway", String(boundary.leeway), "--at", String(now), "-"
                ], stdin: Array(token.utf8))
            #expect(result.exitCode == (boundary.valid ? 0 : 8), "\(boundary): \(result)")
        }
    }

    @Test func jwksProblems() throws {
        try setUp { cli, jwks, minter in
            let token = try minter.mint(TokenMinter.claims(now: TokenMinter.now))
            #expect(try cli.run(["verify", "--jwks", jwks + ".missing", token]).exitCode == 2)
            let bad = jwks + ".bad"
            #expect(FileText.write(#"{"keys": "nope"}"#, to: bad))
            #expect(try cli.run(["verify", "--jwks", bad, token]).exitCode == 8)
            #expect(try cli.run(["verify", "--jwks", jwks, "--alg", "ES256,HS256", token]).exitCode == 2)
            #expect(try cli.run(["verify", "--jwks", jwks, "--alg", "ES256,RS256", token]).exitCode == 0)
        }
    }

    /// The stderr lines that are warnings.
    func warnings(_ result: ProcessResult) -> [String] {
        result.stderrText.split(separator: "\n").map(String.init).filter { $0.hasPrefix("latchkey: warning: ") }
    }

    /// A token on the command line can be read by every local user (`ps`, /proc/PID/cmdline):
    /// one warning line that points to stdin. The result and the exit code do not change.
    @Test func tokenOnTheCommandLineWarnsAndPointsToStandardInput() throws {
        try setUp { cli, jwks, minter in
            let token = try minter.mint(TokenMinter.claims(now: TokenMinter.now))
            let result = try cli.run(["verify", "--jwks", jwks, "--audience", "cli", token])
            #expect(result.exitCode == 0, "\(result)")
            #expect(try JSONParser().parseObject(result.stdout)["claims"]?["sub"] == "user-1")
            let lines = result.stderrText.split(separator: "\n").map(String.init)
            #expect(lines.count == 1 && warnings(result).count == 1, "\(result.stderrText)")
            let warning = lines.first ?? ""
            #expect(warning.contains("ps") && warning.contains("stdin") && warning.contains("verify -"), "\(warning)")
            #expect(!warning.contains(token), "the warning repeats the token")
            // On stdin, with an audience: nothing to warn about.
            let quiet = try cli.run(["verify", "--jwks", jwks, "--audience", "cli", "-"], stdin: Array(token.utf8))
            #expect(quiet.exitCode == 0 && quiet.stderr.isEmpty, "\(quiet)")
        }
    }

    /// Without --audience any token for any client of the issuer passes: say so.
    @Test func missingAudienceWarns() throws {
        try setUp { cli, jwks, minter in
            let token = try minter.mint(TokenMinter.claims(now: TokenMinter.now))
            let result = try cli.run(["verify", "--jwks", jwks, "-"], stdin: Array(token.utf8))
            #expect(result.exitCode == 0, "\(result)")
            #expect(warnings(result).count == 1 && result.stderrText.split(separator: "\n").count == 1, "\(result.stderrText)")
            #expect(warnings(result).first?.contains("--audience") == true, "\(result.stderrText)")
            // Both warnings, one line each; a failed verification keeps its exit code and error line.
            let both = try cli.run(["verify", "--jwks", jwks, token])
            #expect(both.exitCode == 0 && warnings(both).count == 2, "\(both)")
            let other = try TokenMinter()
            let failed = try cli.run(["verify", "--jwks", jwks, try other.mint(TokenMinter.claims(now: TokenMinter.now))])
            #expect(failed.exitCode == 8 && warnings(failed).count == 2, "\(failed)")
            #expect(failed.stderrText.contains("latchkey: token verification failed: "), "\(failed)")
        }
    }

    /// --quiet silences warnings (Console.warn), not results or errors.
    @Test func quietSuppressesTheWarnings() throws {
        try setUp { cli, jwks, minter in
            let token = try minter.mint(TokenMinter.claims(now: TokenMinter.now))
            let result = try cli.run(["--quiet", "verify", "--jwks", jwks, token])
            #expect(result.exitCode == 0 && result.stderr.isEmpty, "\(result)")
            #expect(try JSONParser().parseObject(result.stdout)["claims"]?["sub"] == "user-1")
        }
    }
}
