import Glibc
import LatchkeyJOSE
import LatchkeyTestSupport
import Testing

/// `login --auth-method private_key_jwt` through the binary against the scripted server, which
/// verifies every client assertion for real against the client's public key (aud = the issuer,
/// every claim, typ, kid, a fresh jti) and logs what it checked.
@Suite("latchkey private_key_jwt against the scripted server", .serialized)
struct PrivateKeyJWTProcessTests {
    /// A scripted server playing `scenario` that knows the P-256 fixture's public key, and a CLI
    /// whose key file (the fixture's private key, 0600) is at `keyPath`.
    static func withServer(
        _ scenario: String, _ extra: [String] = [], keyMode: mode_t = 0o600,
        _ body: (ScriptedIdP, LatchkeyCommand, String) throws -> Void
    ) throws {
        let dir = try TemporaryDirectory(prefix: "latchkey-pkjwt-cli-")
        defer { dir.remove() }
        #expect(FileText.write(PEMFixtures.p256PublicKey, to: dir.path + "/client.pub", mode: 0o600))
        let keyPath = dir.path + "/device key.pem"
        #expect(FileText.write(PEMFixtures.p256PKCS8, to: keyPath, mode: keyMode))
        _ = chmod(keyPath, keyMode)
        let idp = try ScriptedIdP(
            scenario: scenario,
            arguments: [
                "--interval", "1", "--approve-after", "1",
                "--client-public-key", dir.path + "/client.pub"
            ] + extra)
        defer { idp.stop() }
        try withCLI { cli, _ in try body(idp, cli, keyPath) }
    }

    static func login(_ cli: LatchkeyCommand, _ idp: ScriptedIdP, key: String, _ extra: [String] = []) throws -> ProcessResult {
        try cli.run(
            [
                "login", "--json", "--issuer", idp.issuer, "--client-id", "cli-device", "--auth-method", "private_key_jwt",
                "--client-key-file", key
            ] + extra, timeout: .seconds(60))
    }

    /// (path, client_assertion log) of every request that carried or lacked an assertion.
    static func assertions(_ idp: ScriptedIdP) throws -> [(path: String, log: JSONValue)] {
        try idp.logLines().map { try JSONParser().parseObject(Array($0.utf8)) }.compactMap { entry in
            guard let log = entry["client_assertion"], case .string(let path)? = entry["path"] else { return nil }
            return (path, log)
        }
    }

    static let everyCheck = ["alg", "typ", "signature", "iss", "sub", "aud", "iat", "exp", "jti-fresh"]

    @Test func loginRefreshAndLogoutWithTheIssuerAudienceEveryClaimCheckedAndNothingLeaked() throws {
        try Self.withServer("private-key-jwt") { idp, cli, key in
            let login = try Self.login(cli, idp, key: key, ["--verbose"])
            #expect(login.exitCode == 0, "\(login)")
            let refresh = try cli.run(["--verbose", "token", "--force-refresh"])
            #expect(refresh.exitCode == 0, "\(refresh)")
            let logout = try cli.run(["--verbose", "logout"])
            #expect(logout.exitCode == 0, "\(logout)")

            let seen = try Self.assertions(idp)
            #expect(seen.map(\.path) == ["/device_authorization", "/token", "/token", "/revoke", "/revoke"])
            var jtis = Set<String>()
            for (path, log) in seen {
                #expect(log["ok"] == .bool(true), "\(path): \(log)")
                #expect(log["checked"]?.arrayValue?.compactMap(\.stringValue) == Self.everyCheck, "\(path): \(log)")
                #expect(log["aud"] == .string(idp.issuer), "\(path): the default aud is the issuer")
                #expect(log["iss"] == .string("cli-device") && log["sub"] == .string("cli-device"))
                #expect(log["typ"] == .string("client-authentication+jwt") && log["alg"] == .string("ES256"))
                #expect(log["lifetime"] == .integer(60))
                jtis.insert(log["jti"]?.stringValue ?? "")
            }
            #expect(jtis.count == seen.count, "a jti was used twice")

            // The profile remembers the key by path only; nothing of the key, the assertion or a jti is printed.
            let profile = try #require(FileText.read(cli.stateDirectory + "/profiles/default.json"))
            #expect(profile.contains(#""client_key_file": "\#(key)""#), "\(profile)")
            let status = try cli.run(["status", "--json"])
            #expect(try JSONParser().parseObject(status.stdout)["files"]?["client_key"] == .string(key), "\(status)")
            let scan = KeyLeakScan(pem: PEMFixtures.p256PKCS8, assertionHeaders: [KeyLeakScan.assertionHeader(alg: "ES256")])
            // The scan finds what it looks for: the key itself, a fragment of it, an assertion's start.
            #expect(!scan.leaks(in: PEMFixtures.p256PKCS8).isEmpty)
            #expect(!scan.leaks(in: "x" + String(PEMFixtures.p256PKCS8.split(separator: "\n")[2].dropFirst(5).prefix(20)) + "x").isEmpty)
            #expect(scan.leaks(in: "client_assertion=" + KeyLeakScan.assertionHeader(alg: "ES256") + ".e30.sig") == [scan.needles.last!])
            for (name, result) in [("login", login), ("refresh", refresh), ("logout", logout)] {
                let output = result.stdoutText + result.stderrText
                #expect(output.contains("client_assertion=[REDACTED]"), "\(name) --verbose shows no redacted assertion")
                #expect(scan.leaks(in: output).isEmpty, "\(name) leaked \(scan.leaks(in: output))")
                for jti in jtis { #expect(!output.contains(jti), "\(name) printed a jti") }
            }
            #expect(scan.leaks(in: profile).isEmpty)
        }
    }

    @Test func anUnadvertisedAlgorithmIsRefusedBeforeAnythingIsSent() throws {
        try Self.withServer("private-key-jwt-rsa-only") { idp, cli, key in
            let login = try Self.login(cli, idp, key: key)
            #expect(login.exitCode == 2, "\(login)")
            #expect(login.stderrText.contains("ES256") && login.stderrText.contains("PS256, RS256"), "\(login.stderrText)")
            expectErrorLines(login)
            let paths = try idp.logLines().map { try JSONParser().parseObject(Array($0.utf8))["path"]?.stringValue ?? "" }
            #expect(paths == ["/.well-known/openid-configuration"], "sent after discovery: \(paths)")
            // A key/algorithm mismatch is refused just as clearly, also before sending.
            let mismatch = try Self.login(cli, idp, key: key, ["--client-assertion-alg", "PS256"])
            #expect(
                mismatch.exitCode == 2 && mismatch.stderrText.contains("PS256 cannot be signed with the client's EC P-256 key"),
                "\(mismatch)")
            #expect(try Self.assertions(idp).isEmpty)
        }
    }

    @Test func typJWTForServersThatRefuseExplicitTyping() throws {
        try Self.withServer("private-key-jwt-typ-jwt") { idp, cli, key in
            let refused = try Self.login(cli, idp, key: key)
            #expect(refused.exitCode == 7, "\(refused)")
            #expect(try Self.assertions(idp).first?.log["reason"]?.stringValue?.hasPrefix("typ 'client-authentication+jwt'") == true)
            let login = try Self.login(cli, idp, key: key, ["--client-assertion-typ", "jwt"])
            #expect(login.exitCode == 0, "\(login)")
            // Remembered: the refresh uses it too.
            #expect(try cli.run(["token", "--force-refresh"]).exitCode == 0)
            let accepted = try Self.assertions(idp).dropFirst()
            #expect(
                accepted.count == 3 && accepted.allSatisfy { $0.log["ok"] == .bool(true) && $0.log["typ"] == .string("jwt") },
                "\(accepted.map(\.log))")
        }
    }

    @Test func theKidIsSentAndRemembered() throws {
        try Self.withServer("private-key-jwt", ["--client-key-id", "factory-2026"]) { idp, cli, key in
            #expect(try Self.login(cli, idp, key: key, ["--client-key-id", "factory-2026"]).exitCode == 0)
            #expect(try cli.run(["token", "--force-refresh"]).exitCode == 0)
            let seen = try Self.assertions(idp)
            #expect(seen.count == 3 && seen.allSatisfy { $0.log["kid"] == .string("factory-2026") && $0.log["ok"] == .bool(true) })
        }
    }

    @Test func theDefaultAudienceRefusedGivesExit7AndAHintNamingTheEndpointOption() throws {
        // The scripted server wants the issuer; an endpoint audience is refused there, and the issuer
        // refused by another provider is what the hint is for: both directions are named.
        try Self.withServer("private-key-jwt") { idp, cli, key in
            let refused = try Self.login(cli, idp, key: key, ["--client-assertion-aud", "endpoint"])
            #expect(refused.exitCode == 7, "\(refused)")
            #expect(refused.stderrText.contains("aud was the endpoint URL"), "\(refused.stderrText)")
            let json = try #require(refused.stdoutLines.last.flatMap { try? JSONParser().parseObject(Array($0.utf8)) })
            #expect(json["error"] == .string("invalid_client") && json["exit_code"] == .integer(7), "\(json)")
        }
    }

    @Test func keyFileRules() throws {
        try Self.withServer("private-key-jwt", keyMode: 0o644) { idp, cli, key in
            let open = try Self.login(cli, idp, key: key)
            #expect(open.exitCode == 9, "\(open)")
            #expect(open.stderrText.contains("mode 0644") && open.stderrText.contains("chmod 600"), "\(open.stderrText)")
            let missing = try Self.login(cli, idp, key: key + ".absent")
            #expect(missing.exitCode == 9 && missing.stderrText.contains("does not exist"), "\(missing)")
            let none = try cli.run(["login", "--issuer", idp.issuer, "--client-id", "c", "--auth-method", "private_key_jwt"])
            #expect(none.exitCode == 2 && none.stderrText.contains("--client-key-file"), "\(none)")
            let stray = try cli.run(["login", "--issuer", idp.issuer, "--client-id", "c", "--client-key-file", key])
            #expect(stray.exitCode == 2, "\(stray)")
            #expect(try Self.assertions(idp).isEmpty, "an unusable key reached the server")
        }
    }
}
