import Glibc
import LatchkeyJOSE
import LatchkeyTestSupport
import Testing

/// The mutual-TLS Glewlwyd (Tests/Harness/idp/start-mtls-instance.sh): Glewlwyd serving TLS itself,
/// asking every client for a certificate, trusting the throwaway fleet CA.
struct MutualTLSIdP {
    let base: IntegrationEnvironment
    /// Plugin `mtls` (certificate read on the ordinary endpoints) and `mtlsalias` (`mtls_endpoint_aliases`).
    let issuer: String, issuerAlias: String
    /// The `tls_client_auth` client (subject DN of the device certificate) and the
    /// `self_signed_tls_client_auth` one (its certificate registered in `jwks`).
    let client: String, selfSignedClient: String
    /// The fleet: the device certificate and key, one from another CA, an expired one, a self-signed one.
    let deviceCert: String, deviceKey: String, otherCACert: String, otherCAKey: String, expiredCert: String
    let selfSignedCert: String, selfSignedKey: String

    static func load(_ env: [String: String] = HostEnvironment.current) throws -> MutualTLSIdP {
        func v(_ name: String) throws -> String { try Requirement.environmentValue("LATCHKEY_IT_" + name, environment: env) }
        return MutualTLSIdP(
            base: try IntegrationEnvironment.load(env), issuer: try v("ISSUER_MTLS"),
            issuerAlias: try v("ISSUER_MTLS_ALIAS"), client: try v("CLIENT_MTLS"),
            selfSignedClient: try v("CLIENT_MTLS_SELF_SIGNED"),
            deviceCert: try v("DEVICE_CERT"), deviceKey: try v("DEVICE_KEY"),
            otherCACert: try v("OTHER_CA_CERT"), otherCAKey: try v("OTHER_CA_KEY"),
            expiredCert: try v("EXPIRED_CERT"), selfSignedCert: try v("SELF_SIGNED_CERT"),
            selfSignedKey: try v("SELF_SIGNED_KEY"))
    }

    /// base64url SHA-256 of the certificate's DER, computed by Python's `ssl` and `hashlib`, not by Latchkey.
    func thumbprint(_ certificate: String) throws -> String {
        let script =
            "import base64,hashlib,ssl,sys; der=ssl.PEM_cert_to_DER_cert(open(sys.argv[1]).read());"
            + " print(base64.urlsafe_b64encode(hashlib.sha256(der).digest()).rstrip(b'=').decode())"
        let r = try ProcessRunner.run(base.python, ["-c", script, certificate], timeout: .seconds(20))
        #expect(r.exitCode == 0, "thumbprint: \(r)")
        return r.stdoutText.trimmed
    }

    /// `POST form` to `url` with curl, presenting `cert`/`key` (or nothing): status and body.
    func post(_ url: String, form: [String], cert: String?, key: String?) throws -> (status: Int, body: String) {
        var args = ["-sS", "--cacert", base.caFile, "-o", "/dev/stdout", "-w", "\n%{http_code}"]
        if let cert, let key { args += ["--cert", cert, "--key", key] }
        for field in form { args += ["--data-urlencode", field] }
        let r = try ProcessRunner.run("/usr/bin/curl", args + [url], timeout: .seconds(20))
        let lines = r.stdoutText.split(separator: "\n", omittingEmptySubsequences: false)
        return (Int(lines.last.map(String.init) ?? "") ?? -1, lines.dropLast().joined(separator: "\n"))
    }

    /// The base64 lines of a PEM private key, which must never appear in any output.
    static func secretLines(ofKey path: String) throws -> [String] {
        let r = try ProcessRunner.run("/bin/cat", [path], timeout: .seconds(5))
        return r.stdoutText.split(separator: "\n").map(String.init).filter { !$0.hasPrefix("-----") && $0.count >= 16 }
    }
}

/// What Glewlwyd does with client certificates, proved with curl before Latchkey relies on it.
@Suite("Glewlwyd mTLS harness")
struct GlewlwydMutualTLSHarnessTests {
    @Test("the device certificate is accepted; another CA's, an expired and no certificate get 403 unauthorized_client")
    func refusals() throws {
        let idp = try MutualTLSIdP.load()
        let url = idp.issuer + "/device_authorization"
        let form = ["client_id=\(idp.client)", "scope=openid"]
        #expect(try idp.post(url, form: form, cert: idp.deviceCert, key: idp.deviceKey).status == 200)
        for (cert, key) in [(idp.otherCACert, idp.otherCAKey), (idp.expiredCert, idp.deviceKey)] as [(String?, String?)] + [(nil, nil)] {
            let answer = try idp.post(url, form: form, cert: cert, key: key)
            #expect(answer.status == 403 && answer.body.contains("unauthorized_client"), "\(cert ?? "no certificate"): \(answer)")
        }
        // With aliases the certificate is read only on /mtls/...: the ordinary endpoint refuses the client.
        #expect(try idp.post(idp.issuerAlias + "/device_authorization", form: form, cert: idp.deviceCert, key: idp.deviceKey).status == 403)
        #expect(
            try idp.post(
                idp.issuerAlias + "/mtls/device_authorization", form: form, cert: idp.deviceCert,
                key: idp.deviceKey
            ).status == 200)
    }
}

/// The `latchkey` binary with `tls_client_auth` and `self_signed_tls_client_auth` (RFC 8705).
@Suite("Glewlwyd mTLS")
struct GlewlwydMutualTLSTests {
    static func login(
        _ idp: MutualTLSIdP, issuer: String, client: String? = nil, cert: String, key: String,
        method: String = "tls_client_auth"
    ) throws -> (Workspace, DeviceLogin.Outcome) {
        let ws = try Workspace.glewlwyd(idp.base)
        let outcome = try GlewlwydDeviceFlowTests.login(
            ws, idp.base, issuer: issuer, client: client ?? idp.client,
            extra: [
                "--auth-method", method, "--client-cert-file", cert, "--client-cert-key-file", key, "--verbose"
            ])
        return (ws, outcome)
    }

    /// The key's base64 lines appear nowhere in `text`.
    static func expectNoKey(_ key: String, in text: String, _ what: String) throws {
        let lines = try MutualTLSIdP.secretLines(ofKey: key)
        #expect(!lines.isEmpty)
        for line in lines { #expect(!text.contains(line), "\(what) shows the private key") }
        #expect(!text.contains("PRIVATE KEY"), "\(what) mentions a private key block")
    }

    @Test("device login with tls_client_auth: cnf.x5t#S256 is the certificate's, token binding mtls; refresh; logout revokes")
    func deviceLogin() throws {
        let idp = try MutualTLSIdP.load()
        let (ws, outcome) = try Self.login(idp, issuer: idp.issuer, cert: idp.deviceCert, key: idp.deviceKey)
        try #require(outcome.result.exitCode == 0, "login: \(outcome.result) \(outcome.result.stderrText)")
        let authorized = try #require(outcome.events.first { $0["event"]?.stringValue == "authorized" })
        #expect(authorized["token_binding"]?.stringValue == "mtls")
        #expect(authorized["id_token_verified"]?.boolValue == true)
        try Self.expectNoKey(idp.deviceKey, in: outcome.result.stderrText + outcome.result.stdoutText, "login --verbose")
        // The verbose log shows the requests went to the ordinary endpoints of the plugin.
        #expect(outcome.result.stderrText.contains("POST \(idp.issuer)/token"))

        let thumbprint = try idp.thumbprint(idp.deviceCert)
        let token = try ws.latchkey.run(["token"]).stdoutText.trimmed
        #expect(jwtPayload(token)?["cnf"]?["x5t#S256"]?.stringValue == thumbprint)
        let status = try ws.latchkey.run(["status", "--json"])
        #expect(try JSONParser().parse(Array(status.stdoutText.utf8))["token_binding"]?.stringValue == "mtls")

        // refresh and logout reuse the remembered certificate files (no options given).
        let refresh = try ws.latchkey.run(["refresh", "--verbose"])
        #expect(refresh.exitCode == 0, "refresh: \(refresh) \(refresh.stderrText)")
        try Self.expectNoKey(idp.deviceKey, in: refresh.stderrText + refresh.stdoutText, "refresh --verbose")
        let refreshed = try ws.latchkey.run(["token"]).stdoutText.trimmed
        #expect(refreshed != token && jwtPayload(refreshed)?["cnf"]?["x5t#S256"]?.stringValue == thumbprint)
        let logout = try ws.latchkey.run(["logout", "--verbose"])
        #expect(logout.exitCode == 0 && logout.stderrText.contains("the tokens are revoked"), "logout: \(logout.stderrText)")
        #expect(!logout.stderrText.contains("warning"), "logout: \(logout.stderrText)")
        try Self.expectNoKey(idp.deviceKey, in: logout.stderrText + logout.stdoutText, "logout --verbose")
    }

    @Test("with mtls_endpoint_aliases the device and token requests go to /mtls/...; refresh and logout too")
    func endpointAliases() throws {
        let idp = try MutualTLSIdP.load()
        let (ws, outcome) = try Self.login(idp, issuer: idp.issuerAlias, cert: idp.deviceCert, key: idp.deviceKey)
        try #require(outcome.result.exitCode == 0, "login: \(outcome.result) \(outcome.result.stderrText)")
        let log = outcome.result.stderrText
        #expect(log.contains("POST \(idp.issuerAlias)/mtls/device_authorization"), "\(log)")
        #expect(log.contains("POST \(idp.issuerAlias)/mtls/token"))
        #expect(!log.contains("POST \(idp.issuerAlias)/token"))
        let refresh = try ws.latchkey.run(["refresh", "--verbose"])
        #expect(
            refresh.exitCode == 0 && refresh.stderrText.contains("POST \(idp.issuerAlias)/mtls/token"), "refresh: \(refresh.stderrText)")
        let logout = try ws.latchkey.run(["logout", "--verbose"])
        #expect(logout.exitCode == 0 && logout.stderrText.contains("POST \(idp.issuerAlias)/mtls/revoke"), "logout: \(logout.stderrText)")
        #expect(logout.stderrText.contains("the tokens are revoked"), "logout: \(logout.stderrText)")
    }

    @Test("self_signed_tls_client_auth with the certificate registered in the client's jwks")
    func selfSigned() throws {
        let idp = try MutualTLSIdP.load()
        let (ws, outcome) = try Self.login(
            idp, issuer: idp.issuer, client: idp.selfSignedClient, cert: idp.selfSignedCert,
            key: idp.selfSignedKey, method: "self_signed_tls_client_auth")
        try #require(outcome.result.exitCode == 0, "login: \(outcome.result) \(outcome.result.stderrText)")
        let token = try ws.latchkey.run(["token"]).stdoutText.trimmed
        #expect(jwtPayload(token)?["cnf"]?["x5t#S256"]?.stringValue == (try idp.thumbprint(idp.selfSignedCert)))
        try Self.expectNoKey(idp.selfSignedKey, in: outcome.result.stderrText, "login --verbose")
    }

    @Test("another CA's certificate: refused after the handshake, exit 7 naming the certificate")
    func otherCA() throws {
        let idp = try MutualTLSIdP.load()
        let ws = try Workspace.glewlwyd(idp.base)
        let r = try ws.latchkey.run([
            "login", "--issuer", idp.issuer, "--client-id", idp.client, "--auth-method", "tls_client_auth",
            "--client-cert-file", idp.otherCACert, "--client-cert-key-file", idp.otherCAKey, "--verbose"
        ])
        #expect(r.exitCode == 7, "\(r) \(r.stderrText)")
        #expect(r.stderrText.contains(#"refused the client certificate "CN=latchkey-device-0001""#), "\(r.stderrText)")
        try Self.expectNoKey(idp.otherCAKey, in: r.stderrText + r.stdoutText, "refused login --verbose")
    }

    @Test("an expired certificate, a key that is not the certificate's, a group-readable key: exit 9 before anything is sent")
    func unusableFiles() throws {
        let idp = try MutualTLSIdP.load()
        let ws = try Workspace.glewlwyd(idp.base)
        func login(cert: String, key: String) throws -> ProcessResult {
            try ws.latchkey.run([
                "login", "--issuer", idp.issuer, "--client-id", idp.client, "--auth-method", "tls_client_auth",
                "--client-cert-file", cert, "--client-cert-key-file", key, "--verbose"
            ])
        }
        let expired = try login(cert: idp.expiredCert, key: idp.deviceKey)
        #expect(expired.exitCode == 9 && expired.stderrText.contains("client certificate expired at 2020-12-31"), "\(expired.stderrText)")
        #expect(!expired.stderrText.contains("> GET"), "something was sent: \(expired.stderrText)")
        let mismatch = try login(cert: idp.deviceCert, key: idp.otherCAKey)
        #expect(mismatch.exitCode == 9 && mismatch.stderrText.contains("does not match the client certificate"), "\(mismatch.stderrText)")
        let copy = ws.directory.path + "/device.key"
        #expect(try ProcessRunner.run("/bin/cp", [idp.deviceKey, copy]).exitCode == 0)
        chmod(copy, 0o640)
        let readable = try login(cert: idp.deviceCert, key: copy)
        #expect(readable.exitCode == 9 && readable.stderrText.contains("mode 0640"), "\(readable.stderrText)")
        for r in [expired, mismatch, readable] { try Self.expectNoKey(idp.deviceKey, in: r.stderrText + r.stdoutText, "refusal") }
    }
}

/// A certificate is public: at the usual mode 0644 it signs in, and refresh and logout read it
/// again by path; only the key is held to the owner-only rule.
@Suite("Glewlwyd mTLS: a public certificate")
struct GlewlwydMutualTLSPublicCertificateTests {
    @Test("tls_client_auth with the certificate at mode 0644: login, refresh and logout succeed")
    func certificateAtModeSixFourFour() throws {
        let idp = try MutualTLSIdP.load()
        let dir = try TemporaryDirectory()
        defer { dir.remove() }
        let certificate = dir.path + "/device.pem"
        #expect(try ProcessRunner.run("/bin/cp", [idp.deviceCert, certificate]).exitCode == 0)
        #expect(chmod(certificate, 0o644) == 0)
        let (ws, outcome) = try GlewlwydMutualTLSTests.login(idp, issuer: idp.issuer, cert: certificate, key: idp.deviceKey)
        try #require(outcome.result.exitCode == 0, "login: \(outcome.result) \(outcome.result.stderrText)")
        #expect(outcome.events.first { $0["event"]?.stringValue == "authorized" }?["token_binding"]?.stringValue == "mtls")
        let refresh = try ws.latchkey.run(["refresh"])
        #expect(refresh.exitCode == 0, "refresh: \(refresh) \(refresh.stderrText)")
        let logout = try ws.latchkey.run(["logout"])
        #expect(logout.exitCode == 0 && !logout.stderrText.contains("warning"), "logout: \(logout.stderrText)")
    }
}
