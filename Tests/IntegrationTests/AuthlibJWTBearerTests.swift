import Glibc
import LatchkeyJOSE
import LatchkeyTestSupport
import Testing

/// The Authlib 1.9.10 servers of Tests/Harness/authlib (start-authlib.sh): plain HTTP and TLS, the
/// JWT bearer grant (RFC 7523 §2.1) and client credentials authenticated by a client assertion
/// (§2.2), the clients' P-256 keys in `keys`, assertions signed by `assertion.py` (Python's
/// `cryptography`, not Authlib).
struct AuthlibEnvironment {
    let issuer: String, issuerTLS: String, caFile: String, keys: String, signer: String, python: String
    let log: String, logTLS: String

    static func load() throws -> AuthlibEnvironment {
        let env = HostEnvironment.current
        func v(_ name: String) throws -> String {
            try Requirement.environmentValue("LATCHKEY_IT_AUTHLIB_" + name, environment: env)
        }
        return AuthlibEnvironment(
            issuer: try v("ISSUER"), issuerTLS: try v("ISSUER_TLS"), caFile: try v("CA_FILE"), keys: try v("KEYS"),
            signer: try v("SIGNER"), python: try v("PYTHON"), log: try v("LOG"), logTLS: try v("LOG_TLS"))
    }

    /// Signs an ES256 assertion with the key NAME (`workload`, `machine`, `other`) into `path`
    /// (0600, one line); returns its `jti`. `claims` are NAME=VALUE; `expiresIn` seconds from now.
    func sign(key: String, into path: String, _ claims: [String], expiresIn: Int = 300) throws -> String {
        let r = try ProcessRunner.run(
            python, [signer, "sign", keys + "/" + key + ".pem", path] + claims + ["--exp-in", String(expiresIn)])
        #expect(r.exitCode == 0, "assertion.py: \(r)")
        return r.stdoutText.trimmed
    }
}

/// RFC 7523 against Authlib 1.9.10: `login --flow jwt-bearer --assertion-file` and
/// `--client-assertion-file`, with the file rule of cli.md.
@Suite("Authlib 1.9.10 JWT bearer", .serialized)
struct AuthlibJWTBearerTests {
    static let grantType = "urn:ietf:params:oauth:grant-type:jwt-bearer"

    func workspace(_ env: AuthlibEnvironment) throws -> Workspace {
        try Workspace(extraEnvironment: ["LATCHKEY_CA_FILE": env.caFile])
    }

    func events(_ r: ProcessResult) -> [JSONValue] { JSONLines.events(r) }

    @Test("the grant with an ES256 assertion file, re-posted when the token expires, from the rotated file", arguments: [false, true])
    func grantRenewedFromTheRotatedFile(tls: Bool) throws {
        let env = try AuthlibEnvironment.load()
        let issuer = tls ? env.issuerTLS : env.issuer
        let ws = try workspace(env)
        let file = ws.directory.path + "/token.jwt"
        let first = try env.sign(
            key: "workload", into: file, ["iss=workload-short", "sub=system:serviceaccount:kiosk:agent", "aud=\(issuer)"])
        let started = wallClock()
        let login = try ws.latchkey.run([
            "--json", "login", "--flow", "jwt-bearer", "--issuer", issuer, "--client-id", "workload-short",
            "--assertion-file", file, "--scope", "read bogus"
        ])
        #expect(login.exitCode == 0, "login: \(login)")
        let authorized = events(login).first { $0["event"]?.stringValue == "authorized" }
        #expect(authorized?["subject"]?.stringValue == "system:serviceaccount:kiosk:agent", "\(login)")
        #expect(authorized?["scope"]?.stringValue == "read", "Authlib drops an unknown scope silently")
        let token1 = try ws.latchkey.run(["token"])
        #expect(token1.exitCode == 0, "token: \(token1)")

        // The issuer (kubelet, a SPIFFE agent) rotates the file; the 3 s token expires.
        let second = try env.sign(
            key: "workload", into: file, ["iss=workload-short", "sub=system:serviceaccount:kiosk:agent", "aud=\(issuer)"])
        usleep(3_300_000)
        let token2 = try ws.latchkey.run(["token"])
        #expect(token2.exitCode == 0, "token: \(token2)")
        #expect(token2.stdoutText != token1.stdoutText && !token2.stdoutText.isEmpty)

        let grants = ServerLog.read(tls ? env.logTLS : env.log, since: started).filter { $0.grantType == Self.grantType }
        #expect(grants.map { $0.raw["assertion_jti"]?.stringValue } == [first, second], "\(grants.map(\.raw))")
        #expect(grants.allSatisfy { $0.status == 200 })
        let status = try ws.latchkey.run(["--json", "status"])
        #expect(status.stdoutText.contains("\"assertion\""), "the path is remembered: \(status)")
        #expect(!status.stdoutText.contains("refresh_token\":\"") && !status.stdoutText.contains(String(first)))
    }

    @Test("a replayed assertion is taken: Authlib never checks jti")
    func replayIsAccepted() throws {
        let env = try AuthlibEnvironment.load()
        let ws = try workspace(env)
        let file = ws.directory.path + "/token.jwt"
        _ = try env.sign(key: "workload", into: file, ["iss=workload", "sub=spiffe://example.org/kiosk", "aud=\(env.issuer)"])
        for _ in 0..<2 {
            let login = try ws.latchkey.run([
                "login", "--flow", "jwt-bearer", "--issuer", env.issuer, "--client-id", "workload", "--assertion-file", file
            ])
            #expect(login.exitCode == 0, "\(login)")
        }
        // Forced renewal with the same file: a third use of the same jti.
        #expect(try ws.latchkey.run(["token", "--min-ttl", "100000"]).exitCode == 0)
    }

    @Test("an expired assertion is exit 3 naming the file, and nothing is sent")
    func expiredAssertionIsRefusedBeforeSending() throws {
        let env = try AuthlibEnvironment.load()
        let ws = try workspace(env)
        let file = ws.directory.path + "/expired.jwt"
        _ = try env.sign(key: "workload", into: file, ["iss=workload", "aud=\(env.issuer)"], expiresIn: -5)
        let started = wallClock()
        let login = try ws.latchkey.run([
            "login", "--flow", "jwt-bearer", "--issuer", env.issuer, "--client-id", "workload", "--assertion-file", file
        ])
        #expect(login.exitCode == 3, "\(login)")
        #expect(login.stderrText.contains(file) && login.stderrText.contains("expired"), "\(login.stderrText)")
        usleep(200_000)
        #expect(ServerLog.read(env.log, since: started).isEmpty, "the server saw a request")
    }

    /// Each refusal Authlib's JWTBearerGrant gives, by what the assertion gets wrong.
    @Test(
        "each invalid_grant reaches the user as exit 7 with its description",
        arguments: [
            ("sub", ["iss=workload", "sub=nobody"], "workload"),
            ("aud", ["iss=workload", "aud=https://elsewhere.example"], "workload"),
            ("iss", ["iss=stranger"], "workload"),
            ("no iss", [], "workload"),
            ("signature", ["iss=workload"], "other")
        ])
    func invalidGrant(name: String, claims: [String], key: String) throws {
        let env = try AuthlibEnvironment.load()
        let ws = try workspace(env)
        let file = ws.directory.path + "/bad.jwt"
        let aud = claims.contains { $0.hasPrefix("aud=") } ? [] : ["aud=\(env.issuer)"]
        let jti = try env.sign(key: key, into: file, claims + aud)
        let started = wallClock()
        let login = try ws.latchkey.run([
            "--json", "login", "--flow", "jwt-bearer", "--issuer", env.issuer, "--client-id", "workload", "--assertion-file", file
        ])
        #expect(login.exitCode == 7, "\(name): \(login)")
        let refused = ServerLog.read(env.log, since: started - 1).filter { $0.raw["assertion_jti"]?.stringValue == jti }
        #expect(refused.count == 1 && refused.first?.error == "invalid_grant", "\(refused.map(\.raw))")
        let error = events(login).first { $0["event"]?.stringValue == "error" }
        #expect(error?["error"]?.stringValue == "invalid_grant")
        // Authlib's refusal of a bad signature carries no description (joserfc's error has none).
        let description = refused.first?.raw["error_description"]?.stringValue
        #expect((description == nil) == (name == "signature"), "\(name): \(refused.map(\.raw))")
        if let description {
            #expect(error?["message"]?.stringValue?.contains(description) == true, "\(name): \(login.stdoutText) lacks '\(description)'")
        }
    }

    @Test("a client without the grant is unauthorized_client: exit 7")
    func clientWithoutTheGrant() throws {
        let env = try AuthlibEnvironment.load()
        let ws = try workspace(env)
        let file = ws.directory.path + "/a.jwt"
        _ = try env.sign(key: "workload", into: file, ["iss=no-grant", "aud=\(env.issuer)"])
        let login = try ws.latchkey.run([
            "login", "--flow", "jwt-bearer", "--issuer", env.issuer, "--client-id", "no-grant", "--assertion-file", file
        ])
        #expect(login.exitCode == 7 && login.stderrText.contains("unauthorized_client"), "\(login)")
    }

    @Test("client credentials authenticated by an assertion file, read at each request", arguments: [false, true])
    func clientCredentialsWithAnAssertionFile(tls: Bool) throws {
        let env = try AuthlibEnvironment.load()
        let issuer = tls ? env.issuerTLS : env.issuer
        let ws = try workspace(env)
        let file = ws.directory.path + "/client.jwt"
        let first = try env.sign(key: "machine", into: file, ["iss=machine", "sub=machine", "aud=\(issuer)"])
        let started = wallClock()
        let login = try ws.latchkey.run([
            "login", "--flow", "client-credentials", "--issuer", issuer, "--client-id", "machine", "--auth-method", "private_key_jwt",
            "--client-assertion-file", file, "--scope", "read"
        ])
        #expect(login.exitCode == 0, "login: \(login)")
        let second = try env.sign(key: "machine", into: file, ["iss=machine", "sub=machine", "aud=\(issuer)/token"])
        let verbose = try ws.latchkey.run(["-v", "token", "--min-ttl", "100000"])
        #expect(verbose.exitCode == 0, "token: \(verbose)")
        let assertion = try #require(FileText.read(file)).trimmed
        #expect(!verbose.stderrText.contains(assertion), "-v shows the assertion")
        #expect(verbose.stderrText.contains("client_assertion=[REDACTED]"), "\(verbose.stderrText)")
        let grants = ServerLog.read(tls ? env.logTLS : env.log, since: started).filter { $0.grantType == "client_credentials" }
        #expect(grants.map { $0.raw["client_assertion_jti"]?.stringValue } == [first, second], "\(grants.map(\.raw))")
        #expect(grants.allSatisfy { $0.status == 200 })

        // Expired: exit 3 naming the file, nothing sent.
        _ = try env.sign(key: "machine", into: file, ["iss=machine", "sub=machine", "aud=\(issuer)"], expiresIn: -1)
        let before = wallClock()
        let expired = try ws.latchkey.run(["token", "--min-ttl", "100000"])
        #expect(expired.exitCode == 3 && expired.stderrText.contains(file), "\(expired)")
        // Signed by a key the server does not know: the client is refused (exit 7).
        _ = try env.sign(key: "other", into: file, ["iss=machine", "sub=machine", "aud=\(issuer)"])
        let refused = try ws.latchkey.run(["token", "--min-ttl", "100000"])
        #expect(refused.exitCode == 7 && refused.stderrText.contains("invalid_client"), "\(refused)")
        let after = ServerLog.read(tls ? env.logTLS : env.log, since: before)
        #expect(after.count == 1, "only the refused one reached the server: \(after.map(\.raw))")
    }

    @Test("unsafe, foreign, multi-line and non-JWT files: exit 9 or 2 naming the file, never on argv or in -v")
    func badFiles() throws {
        let env = try AuthlibEnvironment.load()
        let ws = try workspace(env)
        let good = ws.directory.path + "/good.jwt"
        _ = try env.sign(key: "workload", into: good, ["iss=workload", "aud=\(env.issuer)"])
        let jwt = try #require(FileText.read(good)).trimmed
        func login(_ file: String) throws -> ProcessResult {
            try ws.latchkey.run([
                "-v", "login", "--flow", "jwt-bearer", "--issuer", env.issuer, "--client-id", "workload", "--assertion-file", file
            ])
        }
        let started = wallClock()
        for mode: mode_t in [0o640, 0o620, 0o604, 0o666] {
            let path = ws.directory.path + "/mode-\(String(mode, radix: 8)).jwt"
            #expect(FileText.write(jwt + "\n", to: path, mode: mode))
            _ = chmod(path, mode)
            let r = try login(path)
            #expect(r.exitCode == 9 && r.stderrText.contains(path), "mode \(String(mode, radix: 8)): \(r)")
        }
        let foreign = ws.directory.path + "/foreign.jwt"
        #expect(FileText.write(jwt + "\n", to: foreign))
        if getuid() == 0 {
            #expect(chown(foreign, 65534, 65534) == 0)
        } else {
            _ = unlink(foreign)
            #expect(symlink("/etc/passwd", foreign) == 0)  // root's file: not the user's
        }
        let owned = try login(foreign)
        #expect(owned.exitCode == 9, "foreign owner: \(owned)")
        for (name, text) in [("two-lines", jwt + "\n" + jwt + "\n"), ("not-jwt", "opaque-token\n"), ("empty", "")] {
            let path = ws.directory.path + "/\(name).jwt"
            #expect(FileText.write(text, to: path))
            let r = try login(path)
            #expect(r.exitCode == 2 && r.stderrText.contains(path), "\(name): \(r)")
        }
        #expect(ServerLog.read(env.log, since: started).isEmpty, "a refused file still let a request out")

        let ok = try login(good)
        #expect(ok.exitCode == 0, "\(ok)")
        #expect(!ok.stderrText.contains(jwt) && !ok.stdoutText.contains(jwt), "the assertion is in the output")
        #expect(ok.stderrText.contains("assertion=[REDACTED]"), "\(ok.stderrText)")
        let profile = try #require(FileText.read(ws.latchkey.stateDirectory + "/profiles/default.json"))
        #expect(profile.contains("\"assertion_file\"") && !profile.contains(jwt), "remembered by path, never copied")
    }
}
