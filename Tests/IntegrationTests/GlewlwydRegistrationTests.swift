import Glibc
import LatchkeyJOSE
import LatchkeyTestSupport
import Testing

/// The `register` plugin of the test Glewlwyd (Tests/Harness/idp/configure.py, test-idp.md
/// "Wave 3"): RFC 7591/7592 on, registrations authorised by a `register`-scope token.
struct RegistrationIdP {
    let base: IntegrationEnvironment
    let issuer: String, issuerTLS: String
    let tokenFile: String, tokenFileTLS: String
    /// Tests/Harness/idp/registration_probe.py.
    let probe: String

    static func load(_ env: [String: String] = HostEnvironment.current) throws -> RegistrationIdP {
        func v(_ name: String) throws -> String { try Requirement.environmentValue("LATCHKEY_IT_" + name, environment: env) }
        let base = try IntegrationEnvironment.load(env)
        return RegistrationIdP(
            base: base, issuer: try v("ISSUER_REGISTER"), issuerTLS: try v("ISSUER_REGISTER_TLS"),
            tokenFile: try v("PROVISIONING_TOKEN_FILE"), tokenFileTLS: try v("PROVISIONING_TOKEN_FILE_TLS"),
            probe: PackagePaths.harness() + "/idp/registration_probe.py")
    }

    /// The status Glewlwyd answers a device request authenticated by a hand-made assertion signed with `key`.
    func assertionStatus(issuer: String, client: String, key: String, kid: String) throws -> String {
        let r = try ProcessRunner.run(
            base.python,
            [
                probe, "assertion", "--endpoint", issuer + "/device_authorization",
                "--client-id", client, "--key", key, "--kid", kid, "--ca-file", base.caFile
            ],
            timeout: .seconds(30))
        return r.stdoutText.split(separator: "\n").last.map(String.init) ?? "probe failed: \(r.stderrText)"
    }

    /// The status of `/userinfo` for `accessToken` (sent on the probe's stdin).
    func userinfoStatus(issuer: String, accessToken: String) throws -> String {
        let r = try ProcessRunner.run(
            base.python, [probe, "userinfo", "--endpoint", issuer + "/userinfo", "--ca-file", base.caFile],
            stdin: Array(accessToken.utf8), timeout: .seconds(30))
        return r.stdoutText.split(separator: "\n").last.map(String.init) ?? "probe failed: \(r.stderrText)"
    }
}

/// A kiosk that makes itself a client at the real Glewlwyd, over TLS: register → device login
/// with private_key_jwt → refresh → rotate (the old key refused, proved by a hand-made assertion)
/// → refresh with the new key → delete (the tokens refused afterwards).
@Suite("Glewlwyd dynamic client registration", .serialized)
struct GlewlwydRegistrationTests {
    static func profile(_ ws: Workspace) throws -> JSONObject {
        try JSONParser().parseObject(Array((FileText.read(ws.latchkey.stateDirectory + "/profiles/default.json") ?? "").utf8))
    }

    @Test func registerLoginRefreshRotateAndDeleteOverTLS() throws {
        let idp = try RegistrationIdP.load()
        let ws = try Workspace.glewlwyd(idp.base)
        let created = try ws.latchkey.run([
            "--json", "--verbose", "register", "--issuer", idp.issuerTLS,
            "--initial-access-token-file", idp.tokenFileTLS, "--registration-dialect", "glewlwyd",
            "--scope", idp.base.scope
        ])
        try #require(created.exitCode == 0, "register: \(created)")
        let event = try JSONParser().parseObject(Array(created.stdoutText.utf8))
        let client = try #require(event["client_id"]?.stringValue)
        let oldKid = try #require(event["key_thumbprint"]?.stringValue)
        #expect(event["management"] == .bool(true) && event["auth_method"] == "private_key_jwt")
        #expect(created.stderrText.contains("\"grant_types\":[\"device_authorization\",\"refresh_token\",\"delete_token\"]"))
        let provisioning = (FileText.read(idp.tokenFileTLS) ?? "").split(separator: "\n").first.map(String.init) ?? "?"
        #expect(!created.stderrText.contains(provisioning), "--verbose showed the provisioning token")

        // `login` needs no flag: the profile has issuer, client_id, key, kid and the endpoint audience.
        let login = DeviceLogin(latchkey: ws.latchkey, arguments: ["--verbose"])
        let outcome = try login.run { event, _ in
            let code = try #require(event["user_code"]?.stringValue)
            let approval = try idp.base.approve(userCode: code, issuer: idp.issuerTLS)
            #expect(approval.exitCode == 0, "approve.py: \(approval) \(approval.stdoutText)")
        }
        try #require(outcome.result.exitCode == 0, "login: \(outcome.result)")
        #expect(outcome.result.stderrText.contains("client_assertion=[REDACTED]"))
        let first = try ws.latchkey.run(["refresh"])
        #expect(first.exitCode == 0, "refresh: \(first)")

        let oldKey = ws.directory.path + "/old-key.pem"
        // The generated key is sealed under the machine key; the probe signs with its PEM.
        let unseal = PackagePaths.harness() + "/unseal_client_key.py"
        let copied = try ProcessRunner.run(idp.base.python, [unseal, ws.latchkey.stateDirectory + "/keys/default.pem", oldKey])
        #expect(copied.exitCode == 0, "\(copied)")
        #expect(
            try idp.assertionStatus(issuer: idp.issuerTLS, client: client, key: oldKey, kid: oldKid) == "200",
            "the hand-made assertion is accepted before the rotation")
        let rotated = try ws.latchkey.run(["--json", "register", "--rotate-key"])
        try #require(rotated.exitCode == 0, "rotate: \(rotated)")
        let newKid = try #require(try JSONParser().parseObject(Array(rotated.stdoutText.utf8))["key_thumbprint"]?.stringValue)
        #expect(newKid != oldKid)
        #expect(
            try idp.assertionStatus(issuer: idp.issuerTLS, client: client, key: oldKey, kid: oldKid) == "401",
            "the old key is still accepted after the rotation")
        let newKey = try #require(try Self.profile(ws)["client_key_file"]?.stringValue)
        let newPEM = ws.directory.path + "/rotated-key.pem"
        #expect(try ProcessRunner.run(idp.base.python, [unseal, newKey, newPEM]).exitCode == 0)
        #expect(try idp.assertionStatus(issuer: idp.issuerTLS, client: client, key: newPEM, kid: newKid) == "200")
        let second = try ws.latchkey.run(["--verbose", "refresh"])
        #expect(second.exitCode == 0, "refresh with the new key: \(second)")

        let keptKey = ws.directory.path + "/new-key.pem"
        #expect(try ProcessRunner.run("/bin/cp", ["-p", newPEM, keptKey]).exitCode == 0)
        let accessToken = try ws.latchkey.run(["token"]).stdoutText.split(separator: "\n").first.map(String.init) ?? ""
        #expect(try idp.userinfoStatus(issuer: idp.issuerTLS, accessToken: accessToken) == "200")
        // Glewlwyd leaves a deleted client's tokens alive (test-idp.md), so `--delete` revokes first:
        // stopped right after that step, the client still exists and its access token is refused.
        let stopped = try LatchkeyCommand(
            stateDirectory: ws.latchkey.stateDirectory,
            extraEnvironment: ["LATCHKEY_CA_FILE": idp.base.caFile, "LATCHKEY_TEST_KILL_AT": "delete-revoked"]
        )
        .run(["register", "--delete"])
        #expect(stopped.terminatingSignal == SIGKILL, "\(stopped)")
        #expect(try idp.userinfoStatus(issuer: idp.issuerTLS, accessToken: accessToken) == "401", "the access token was not revoked")
        #expect(
            try idp.assertionStatus(issuer: idp.issuerTLS, client: client, key: newPEM, kid: newKid) == "200",
            "the client is gone before the DELETE")
        let deleted = try ws.latchkey.run(["--json", "register", "--delete"])
        #expect(deleted.exitCode == 0, "delete: \(deleted)")
        #expect(deleted.stdoutText == "{\"event\":\"deregistered\"}\n")
        #expect(try idp.userinfoStatus(issuer: idp.issuerTLS, accessToken: accessToken) != "200", "the access token still works")
        #expect(
            try idp.assertionStatus(issuer: idp.issuerTLS, client: client, key: keptKey, kid: newKid) != "200",
            "the deleted client still authenticates")
        #expect(!PackagePaths.exists(ws.latchkey.stateDirectory + "/profiles/default.json"))
        #expect(!PackagePaths.exists(newKey), "the generated key is deleted")
    }

    @Test func aRefusedProvisioningTokenIsExit7AndLeavesNothing() throws {
        let idp = try RegistrationIdP.load()
        let ws = try Workspace.glewlwyd(idp.base)
        let bogus = ws.directory.path + "/bogus.token"
        #expect(FileText.write("not-a-token\n", to: bogus, mode: 0o600))
        let r = try ws.latchkey.run([
            "register", "--issuer", idp.issuer, "--initial-access-token-file", bogus,
            "--registration-dialect", "glewlwyd"
        ])
        #expect(r.exitCode == 7, "\(r)")
        #expect(r.stderrText.contains("the provisioning token was refused"))
        let left = try ProcessRunner.run("/usr/bin/find", [ws.latchkey.stateDirectory, "-mindepth", "1"])
        #expect(left.stdoutText.isEmpty, "left: \(left.stdoutText)")
    }

    @Test func theRFCDialectsDeviceGrantURNIsRefusedByGlewlwyd() throws {
        // test-idp.md: Glewlwyd refuses the RFC 8628 URN, which is what --registration-dialect glewlwyd is for.
        let idp = try RegistrationIdP.load()
        let ws = try Workspace.glewlwyd(idp.base)
        let r = try ws.latchkey.run(["register", "--issuer", idp.issuer, "--initial-access-token-file", idp.tokenFile])
        #expect(r.exitCode == 7, "\(r)")
        #expect(r.stderrText.contains("invalid_client_metadata"), "\(r.stderrText)")
    }
}
