import Glibc
import LatchkeyJOSE
import LatchkeyTestSupport
import Testing

/// The client-credentials grant (RFC 6749 §4.4) with the client proving itself by a key or a
/// certificate instead of a secret: private_key_jwt at the `pkjwtmachine` plugin (Tests/Harness/idp/
/// configure.py) and tls_client_auth at the mutual-TLS instance's `mtlsmachine` plugin
/// (configure_mtls.py). Scope `machine`: no person is involved.
struct ClientCredentialsAuthIdP {
    let pkjwt: PrivateKeyJWTIdP
    let mtls: MutualTLSIdP
    let issuerPKJWT: String, issuerPKJWTTLS: String, clientPKJWTES256: String, clientPKJWTPS256: String
    let issuerMTLS: String, clientMTLS: String
    /// `mtlsaliaspkjwt`: private_key_jwt while the certificate is presented at `mtls_endpoint_aliases`.
    let issuerAliasPKJWT: String, clientAliasPKJWT: String, keyAliasPKJWT: String
    static let scope = "machine glwd_revoke"

    static func load(_ env: [String: String] = HostEnvironment.current) throws -> ClientCredentialsAuthIdP {
        func v(_ name: String) throws -> String { try Requirement.environmentValue("LATCHKEY_IT_" + name, environment: env) }
        return ClientCredentialsAuthIdP(
            pkjwt: try PrivateKeyJWTIdP.load(env), mtls: try MutualTLSIdP.load(env),
            issuerPKJWT: try v("ISSUER_PKJWT_MACHINE"), issuerPKJWTTLS: try v("ISSUER_PKJWT_MACHINE_TLS"),
            clientPKJWTES256: try v("CLIENT_PKJWT_MACHINE_ES256"),
            clientPKJWTPS256: try v("CLIENT_PKJWT_MACHINE_PS256"),
            issuerMTLS: try v("ISSUER_MTLS_MACHINE"), clientMTLS: try v("CLIENT_MTLS_MACHINE"),
            issuerAliasPKJWT: try v("ISSUER_MTLS_ALIAS_PKJWT"), clientAliasPKJWT: try v("CLIENT_MTLS_PKJWT"),
            keyAliasPKJWT: try v("MTLS_PKJWT_KEY"))
    }
}

@Suite("Glewlwyd client credentials with private_key_jwt and mTLS", .serialized)
struct GlewlwydClientCredentialsAuthTests {
    /// login, `token`, a renewal (`token --force-refresh` runs the grant again), `status` and
    /// logout; everything but `status` with `--verbose`. Returns the outputs to scan.
    static func session(_ ws: Workspace, login: [String]) throws -> (
        login: ProcessResult, renewal: ProcessResult, logout: ProcessResult,
        first: String, renewed: String, status: JSONObject
    ) {
        let signIn = try ws.latchkey.run(
            [
                "--verbose", "login", "--json", "--flow", "client-credentials",
                "--scope", ClientCredentialsAuthIdP.scope
            ] + login)
        #expect(signIn.exitCode == 0, "login: \(signIn) \(signIn.stderrText)")
        let first = try ws.latchkey.run(["token"]).stdoutText.trimmed
        let renewal = try ws.latchkey.run(["--verbose", "token", "--force-refresh"])
        #expect(renewal.exitCode == 0, "renewal: \(renewal) \(renewal.stderrText)")
        let renewed = renewal.stdoutText.trimmed
        #expect(!first.isEmpty && !renewed.isEmpty && renewed != first, "the renewal gave no new access token")
        let status = try JSONParser().parseObject(try ws.latchkey.run(["status", "--json"]).stdout)
        let logout = try ws.latchkey.run(["--verbose", "logout"])
        #expect(logout.exitCode == 0 && logout.stderrText.contains("the tokens are revoked"), "logout: \(logout.stderrText)")
        #expect(!logout.stderrText.contains("warning"), "logout: \(logout.stderrText)")
        return (signIn, renewal, logout, first, renewed, status)
    }

    @Test(
        "private_key_jwt: login, token, renewal, status (the client is the subject), logout; assertions on every grant, no secret",
        arguments: [("ES256", true), ("PS256", false)])
    func privateKeyJWT(alg: String, tls: Bool) throws {
        let idp = try ClientCredentialsAuthIdP.load()
        let client = alg == "ES256" ? idp.clientPKJWTES256 : idp.clientPKJWTPS256
        let key = idp.pkjwt.client(alg, tls: tls).key
        let ws = try Workspace.glewlwyd(idp.pkjwt.base)
        let started = wallClock()
        let s = try Self.session(
            ws,
            login: [
                "--issuer", tls ? idp.issuerPKJWTTLS : idp.issuerPKJWT, "--client-id", client,
                "--auth-method", "private_key_jwt", "--client-key-file", key,
                "--client-assertion-aud", "endpoint", "--client-assertion-alg", alg
            ])
        #expect(s.login.stdoutText.contains("\"subject\":\"\(client)\""), "\(s.login.stdoutText)")
        #expect(s.status["subject"]?.stringValue == client && s.status["refresh_token"]?.boolValue == false, "\(s.status)")
        #expect(jwtPayload(s.renewed)?["sub"]?.stringValue == client)

        let log = ServerLog.read(tls ? idp.pkjwt.base.proxyLogTLS : idp.pkjwt.base.proxyLog, since: started)
            .filter { $0.param("client_id") == client }
        let grants = log.filter { $0.grantType == "client_credentials" }
        #expect(grants.count == 2 && grants.allSatisfy { $0.status == 200 }, "login and renewal: \(grants.map(\.raw))")
        let revoked = log.filter { $0.path.hasSuffix("/revoke") && $0.status == 200 }
        #expect(revoked.map { $0.param("token_type_hint") ?? "?" } == ["access_token"], "\(revoked.map(\.raw))")
        for request in grants + revoked {
            #expect(request.param("client_assertion_type") == "urn:ietf:params:oauth:client-assertion-type:jwt-bearer", "\(request.raw)")
            #expect(
                request.param("client_secret") == nil && request.raw["auth_scheme"]?.stringValue == nil, "a secret was sent: \(request.raw)"
            )
        }

        let pem = try #require(FileText.read(key))
        let scan = KeyLeakScan(pem: pem, assertionHeaders: [KeyLeakScan.assertionHeader(alg: alg)])
        for (name, output) in [("login", s.login), ("renewal", s.renewal), ("logout", s.logout)] {
            let text = output.stdoutText + output.stderrText
            #expect(text.contains("client_assertion=[REDACTED]"), "\(name): --verbose showed no redacted assertion")
            #expect(scan.leaks(in: text).isEmpty, "\(name) leaked \(scan.leaks(in: text))")
        }
    }

    @Test("tls_client_auth: login, token bound to the certificate (cnf.x5t#S256, token_binding mtls), renewal, status, logout")
    func mutualTLS() throws {
        let idp = try ClientCredentialsAuthIdP.load()
        let ws = try Workspace.glewlwyd(idp.mtls.base)
        let s = try Self.session(
            ws,
            login: [
                "--issuer", idp.issuerMTLS, "--client-id", idp.clientMTLS, "--auth-method", "tls_client_auth",
                "--client-cert-file", idp.mtls.deviceCert, "--client-cert-key-file", idp.mtls.deviceKey
            ])
        let authorized = JSONLines.objects(s.login.stdoutLines).first { $0["event"]?.stringValue == "authorized" }
        #expect(authorized?["subject"]?.stringValue == idp.clientMTLS, "\(s.login.stdoutText)")
        #expect(authorized?["token_binding"]?.stringValue == "mtls", "\(s.login.stdoutText)")
        let thumbprint = try idp.mtls.thumbprint(idp.mtls.deviceCert)
        for token in [s.first, s.renewed] {
            #expect(jwtPayload(token)?["cnf"]?["x5t#S256"]?.stringValue == thumbprint)
            #expect(jwtPayload(token)?["sub"]?.stringValue == idp.clientMTLS)
        }
        #expect(s.status["subject"]?.stringValue == idp.clientMTLS && s.status["token_binding"]?.stringValue == "mtls", "\(s.status)")
        // The grant went to the ordinary token endpoint, with client_id and no secret or assertion.
        #expect(s.login.stderrText.contains("POST \(idp.issuerMTLS)/token"), "\(s.login.stderrText)")
        #expect(
            s.login.stderrText.contains("> grant_type=client_credentials&scope=machine%20glwd_revoke&client_id=\(idp.clientMTLS)\n"),
            "\(s.login.stderrText)")
        #expect(s.renewal.stderrText.contains("> grant_type=client_credentials&"), "\(s.renewal.stderrText)")
        for output in [s.login, s.renewal, s.logout] {
            try GlewlwydMutualTLSTests.expectNoKey(idp.mtls.deviceKey, in: output.stdoutText + output.stderrText, "--verbose")
            // What was sent (the `> ` lines; the metadata read back lists the methods by name).
            let sent = output.stderrText.split(separator: "\n").filter { $0.hasPrefix("> ") }
            #expect(
                !sent.isEmpty
                    && !sent.contains { $0.contains("client_secret") || $0.contains("client_assertion") || $0.contains("Authorization:") },
                "\(sent)")
        }
    }

    @Test("private_key_jwt with the certificate presented at mtls_endpoint_aliases: the endpoint aud names <issuer>/token, not the alias")
    func privateKeyJWTAtTheAliases() throws {
        let idp = try ClientCredentialsAuthIdP.load()
        let ws = try Workspace.glewlwyd(idp.mtls.base)
        let s = try Self.session(
            ws,
            login: [
                "--issuer", idp.issuerAliasPKJWT, "--client-id", idp.clientAliasPKJWT,
                "--auth-method", "private_key_jwt", "--client-key-file", idp.keyAliasPKJWT,
                "--client-assertion-aud", "endpoint", "--client-cert-file", idp.mtls.deviceCert,
                "--client-cert-key-file", idp.mtls.deviceKey
            ])
        #expect(s.status["subject"]?.stringValue == idp.clientAliasPKJWT, "\(s.status)")
        for output in [s.login, s.renewal] {
            #expect(output.stderrText.contains("> POST \(idp.issuerAliasPKJWT)/mtls/token\n"), "\(output.stderrText)")
            #expect(!output.stderrText.contains("> POST \(idp.issuerAliasPKJWT)/token"))
        }
        #expect(s.logout.stderrText.contains("> POST \(idp.issuerAliasPKJWT)/mtls/revoke\n"), "\(s.logout.stderrText)")
        let scan = KeyLeakScan(
            pem: try #require(FileText.read(idp.keyAliasPKJWT)), assertionHeaders: [KeyLeakScan.assertionHeader(alg: "ES256")])
        for output in [s.login, s.renewal, s.logout] {
            let text = output.stdoutText + output.stderrText
            #expect(text.contains("client_assertion=[REDACTED]") && scan.leaks(in: text).isEmpty, "leaked \(scan.leaks(in: text))")
            try GlewlwydMutualTLSTests.expectNoKey(idp.mtls.deviceKey, in: text, "--verbose")
        }
    }

    @Test("tls_client_auth with another CA's certificate: exit 7 naming the certificate, nothing saved, key never shown")
    func otherCA() throws {
        let idp = try ClientCredentialsAuthIdP.load()
        let ws = try Workspace.glewlwyd(idp.mtls.base)
        let r = try ws.latchkey.run([
            "--verbose", "login", "--flow", "client-credentials", "--scope", ClientCredentialsAuthIdP.scope,
            "--issuer", idp.issuerMTLS, "--client-id", idp.clientMTLS, "--auth-method", "tls_client_auth",
            "--client-cert-file", idp.mtls.otherCACert, "--client-cert-key-file", idp.mtls.otherCAKey
        ])
        #expect(r.exitCode == 7, "\(r) \(r.stderrText)")
        #expect(r.stderrText.contains(#"the token endpoint refused the client certificate "CN=latchkey-device-0001""#), "\(r.stderrText)")
        #expect(access(ws.latchkey.stateDirectory + "/profiles/default.json", F_OK) != 0, "a refused login saved a profile")
        try GlewlwydMutualTLSTests.expectNoKey(idp.mtls.otherCAKey, in: r.stderrText + r.stdoutText, "refused login --verbose")
    }
}
