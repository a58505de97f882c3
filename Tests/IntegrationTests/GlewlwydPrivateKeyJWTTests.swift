import Glibc
import LatchkeyJOSE
import LatchkeyTestSupport
import Testing

/// The `pkjwt` plugin of the test Glewlwyd (Tests/Harness/idp/configure.py): clients registered
/// with the public half of a harness-made ES256 or PS256 key, as start-idp.sh exports them.
struct PrivateKeyJWTIdP {
    let base: IntegrationEnvironment
    let issuer: String, issuerTLS: String
    let clientES256: String, clientPS256: String
    /// The private keys (0600 PEM files in the state dir), per instance, and one registered nowhere.
    let keyES256: String, keyPS256: String, keyES256TLS: String, keyPS256TLS: String, wrongKey: String
    /// Tests/Harness/idp/pkjwt_probe.py.
    let probe: String

    static func load(_ env: [String: String] = HostEnvironment.current) throws -> PrivateKeyJWTIdP {
        func v(_ name: String) throws -> String { try Requirement.environmentValue("LATCHKEY_IT_" + name, environment: env) }
        return PrivateKeyJWTIdP(
            base: try IntegrationEnvironment.load(env),
            issuer: try v("ISSUER_PKJWT"), issuerTLS: try v("ISSUER_PKJWT_TLS"),
            clientES256: try v("CLIENT_PKJWT_ES256"), clientPS256: try v("CLIENT_PKJWT_PS256"),
            keyES256: try v("PKJWT_KEY_ES256"), keyPS256: try v("PKJWT_KEY_PS256"),
            keyES256TLS: try v("PKJWT_KEY_ES256_TLS"), keyPS256TLS: try v("PKJWT_KEY_PS256_TLS"),
            wrongKey: try v("PKJWT_KEY_WRONG"), probe: try v("PKJWT_PROBE"))
    }

    /// The client and its key file for `alg` on `issuer`'s instance.
    func client(_ alg: String, tls: Bool = false) -> (id: String, key: String) {
        alg == "ES256" ? (clientES256, tls ? keyES256TLS : keyES256) : (clientPS256, tls ? keyPS256TLS : keyPS256)
    }
}

/// What Glewlwyd does with client assertions, proved with hand-made ones (pkjwt_probe.py, Python
/// `cryptography`), independently of Latchkey: the facts the suite below relies on.
@Suite("Glewlwyd private_key_jwt harness")
struct GlewlwydPrivateKeyJWTHarnessTests {
    @Test("endpoint aud accepted, issuer and array refused, wrong key and replayed jti refused", arguments: ["ES256", "PS256"])
    func probe(alg: String) throws {
        let idp = try PrivateKeyJWTIdP.load()
        let (client, key) = idp.client(alg, tls: true)
        let r = try ProcessRunner.run(
            idp.base.python,
            [
                idp.probe, "--issuer", idp.issuerTLS, "--ca-file", idp.base.caFile,
                "--client-id", client, "--key", key, "--alg", alg,
                "--wrong-key", idp.wrongKey
            ], timeout: .seconds(60))
        let checks = JSONLines.objects(r.stdoutLines).filter { $0["check"] != nil }
        for check in checks where check["ok"]?.boolValue != true { Issue.record("probe check failed: \(check)") }
        #expect(checks.count == 8, "\(r.stdoutText)")
        #expect(r.exitCode == 0, "pkjwt_probe.py: \(r) \(r.stderrText)")
    }
}

/// private_key_jwt at the real Glewlwyd 2.7.5, which accepts an assertion only when `aud` is the
/// exact endpoint URL (test-idp.md): so `--client-assertion-aud endpoint` here; the default issuer
/// audience is proved against the scripted server and its refusal here gets the hint.
@Suite("Glewlwyd private_key_jwt", .serialized)
struct GlewlwydPrivateKeyJWTTests {
    static func login(
        _ ws: Workspace, _ idp: PrivateKeyJWTIdP, issuer: String, client: String, key: String,
        extra: [String] = ["--client-assertion-aud", "endpoint"]
    ) throws -> DeviceLogin.Outcome {
        try GlewlwydDeviceFlowTests.login(
            ws, idp.base, issuer: issuer, client: client,
            extra: ["--verbose", "--auth-method", "private_key_jwt", "--client-key-file", key] + extra)
    }

    /// Device login, `token --force-refresh` and logout, each with `--verbose`; revocation proved by
    /// the proxy log and by the revoked refresh token failing afterwards; nothing of the key leaked.
    static func fullSession(alg: String, tls: Bool) throws {
        let idp = try PrivateKeyJWTIdP.load()
        let issuer = tls ? idp.issuerTLS : idp.issuer
        let (client, key) = idp.client(alg, tls: tls)
        let ws = try Workspace.glewlwyd(idp.base)
        let started = wallClock()
        let login = try login(ws, idp, issuer: issuer, client: client, key: key)
        try #require(login.result.exitCode == 0, "login: \(login.result)")
        #expect(login.events.last?["id_token_verified"] == .bool(true))
        let before = try ws.latchkey.run(["token"]).stdoutText
        let refresh = try ws.latchkey.run(["--verbose", "token", "--force-refresh"])
        #expect(refresh.exitCode == 0, "refresh: \(refresh)")
        #expect(!refresh.stdoutText.isEmpty && refresh.stdoutText != before, "no new access token")
        let snapshot = try ws.snapshot()
        let logout = try ws.latchkey.run(["--verbose", "logout"])
        #expect(logout.exitCode == 0, "logout: \(logout)")

        let log = ServerLog.read(tls ? idp.base.proxyLogTLS : idp.base.proxyLog, since: started)
            .filter { $0.param("client_id") == client }
        // Every request that authenticates the client carried an assertion (the proxy logs its presence).
        let authenticated = log.filter {
            $0.path.hasSuffix("/device_authorization") || $0.path.hasSuffix("/token") || $0.path.hasSuffix("/revoke")
        }
        #expect(
            !authenticated.isEmpty
                && authenticated.allSatisfy {
                    $0.param("client_assertion_type") == "urn:ietf:params:oauth:client-assertion-type:jwt-bearer"
                },
            "\(authenticated.map(\.raw))")
        #expect(log.contains { $0.isRefresh && $0.status == 200 }, "no successful refresh")
        let revoked = log.filter { $0.path.hasSuffix("/revoke") && $0.status == 200 }
        #expect(revoked.map { $0.param("token_type_hint") ?? "?" } == ["refresh_token", "access_token"], "\(revoked.map(\.raw))")
        let stale = try snapshot.latchkey.run(["refresh"])
        #expect(stale.exitCode == 3, "the revoked refresh token still worked: \(stale)")

        let pem = try #require(FileText.read(key))
        let scan = KeyLeakScan(pem: pem, assertionHeaders: [KeyLeakScan.assertionHeader(alg: alg)])
        #expect(!scan.leaks(in: pem).isEmpty)
        for (name, output) in [("login", login.result), ("refresh", refresh), ("logout", logout)]
            .map({ ($0.0, $0.1.stdoutText + $0.1.stderrText) })
        {
            #expect(output.contains("client_assertion=[REDACTED]"), "\(name): --verbose showed no redacted assertion")
            #expect(scan.leaks(in: output).isEmpty, "\(name) leaked \(scan.leaks(in: output))")
        }
    }

    @Test("device login, refresh and logout revocation with --client-assertion-aud endpoint", arguments: ["ES256", "PS256"])
    func endpointAudience(alg: String) throws {
        try Self.fullSession(alg: alg, tls: false)
    }

    @Test("over TLS: device login, refresh and logout revocation (ES256)")
    func overTLS() throws {
        try Self.fullSession(alg: "ES256", tls: true)
    }

    @Test("a key Glewlwyd does not have for the client: exit 7")
    func wrongKey() throws {
        let idp = try PrivateKeyJWTIdP.load()
        let ws = try Workspace.glewlwyd(idp.base)
        let r = try ws.latchkey.run([
            "login", "--issuer", idp.issuer, "--client-id", idp.clientES256, "--scope", idp.base.scope,
            "--auth-method", "private_key_jwt", "--client-key-file", idp.wrongKey,
            "--client-assertion-aud", "endpoint", "--timeout", "20"
        ])
        #expect(r.exitCode == 7, "\(r)")
        #expect(r.stderrText.contains("refused the client's private_key_jwt authentication"), "\(r.stderrText)")
        #expect(!r.stderrText.contains("--client-assertion-aud endpoint"), "the endpoint audience was used: \(r.stderrText)")
        #expect(access(ws.latchkey.stateDirectory + "/profiles/default.json", F_OK) != 0, "a refused login saved a profile")
    }

    @Test("the default aud (the issuer) is refused by Glewlwyd: exit 7 and a hint naming --client-assertion-aud endpoint")
    func issuerAudienceRefused() throws {
        let idp = try PrivateKeyJWTIdP.load()
        let ws = try Workspace.glewlwyd(idp.base)
        let r = try ws.latchkey.run([
            "login", "--issuer", idp.issuer, "--client-id", idp.clientPS256, "--scope", idp.base.scope,
            "--auth-method", "private_key_jwt", "--client-key-file", idp.keyPS256, "--timeout", "20"
        ])
        #expect(r.exitCode == 7, "\(r)")
        let hint = r.stderrText.split(separator: "\n").first { $0.hasPrefix("hint: ") }.map(String.init) ?? ""
        #expect(hint.contains("--client-assertion-aud endpoint"), "\(r.stderrText)")
        #expect(r.stderrText.contains("aud was the issuer identifier"))
    }
}
