import Glibc
import LatchkeyJOSE
import LatchkeyTestSupport
import Testing

/// The issue-16 plugins of the test Glewlwyd (Tests/Harness/idp/configure.py): `par` and
/// `parshort` require pushed authorization requests (request_uri lives 90 s / 2 s), `resource`
/// allows RFC 8707 resource indicators per scope, `machine` has the client-credentials grant.
struct IssueSixteenEnvironment {
    let base: IntegrationEnvironment
    let issuerPAR: String, issuerPARShort: String, issuerPARTLS: String
    let issuerResource: String, issuerMachine: String, issuerMachineTLS: String
    let clientPAR: String, clientMachine: String
    let machineSecretFile: String, machineSecretFileTLS: String
    let resource: String
    /// The PAR client's redirect: a port of its own (28683), since Glewlwyd matches redirects
    /// exactly and the device-flow suite's code test listens on 28682 at the same time (both below
    /// the kernel's ephemeral range, so no other socket can be holding them).
    let redirectURI: String

    static func load() throws -> IssueSixteenEnvironment {
        let env = HostEnvironment.current
        func v(_ name: String) throws -> String { try Requirement.environmentValue("LATCHKEY_IT_" + name, environment: env) }
        return IssueSixteenEnvironment(
            base: try IntegrationEnvironment.load(),
            issuerPAR: try v("ISSUER_PAR"), issuerPARShort: try v("ISSUER_PAR_SHORT"), issuerPARTLS: try v("ISSUER_PAR_TLS"),
            issuerResource: try v("ISSUER_RESOURCE"), issuerMachine: try v("ISSUER_MACHINE"),
            issuerMachineTLS: try v("ISSUER_MACHINE_TLS"), clientPAR: try v("CLIENT_PAR"), clientMachine: try v("CLIENT_MACHINE"),
            machineSecretFile: try v("MACHINE_SECRET_FILE"), machineSecretFileTLS: try v("MACHINE_SECRET_FILE_TLS"),
            resource: try v("RESOURCE"), redirectURI: try v("REDIRECT_URI_PAR"))
    }
}

/// The `aud` claim of a JWT access token (Glewlwyd's are JWTs), or nil.
func accessTokenAudience(_ token: String) -> String? {
    let parts = token.split(separator: ".")
    guard parts.count == 3, let bytes = try? Base64URL.decode(parts[1]), let claims = try? JSONParser().parse(bytes) else { return nil }
    return claims["aud"]?.stringValue
}

/// PAR (RFC 9126) and resource indicators (RFC 8707) at Glewlwyd 2.7.5.
@Suite("Glewlwyd PAR and resource indicators", .serialized)
struct GlewlwydPARTests {
    func codeLogin(_ ws: Workspace, _ env: IssueSixteenEnvironment, issuer: String, extra: [String] = []) throws -> DeviceLogin.Outcome {
        let login = DeviceLogin(
            latchkey: ws.latchkey,
            arguments: [
                "--issuer", issuer, "--client-id", env.clientPAR, "--scope", "openid offline_access profile",
                "--flow", "browser", "--redirect-uri", env.redirectURI
            ] + extra)
        return try login.run(trigger: "authorization_url") { event, _ in
            let url = try #require(event["url"]?.stringValue)
            let browser = try env.base.completeBrowserLogin(authorizationURL: url)
            #expect(browser.exitCode == 0, "browser: \(browser) \(browser.stdoutText)")
        }
    }

    @Test(
        "PAR required: --par auto pushes and signs in (plain and TLS); the URL holds client_id, request_uri and the pushed response_type, scope, redirect_uri and prompt",
        arguments: [false, true])
    func parRequiredAuto(tls: Bool) throws {
        let env = try IssueSixteenEnvironment.load()
        let ws = try Workspace.glewlwyd(env.base)
        let issuer = tls ? env.issuerPARTLS : env.issuerPAR
        let started = wallClock()
        let outcome = try codeLogin(ws, env, issuer: issuer, extra: ["--par", "auto"])
        #expect(outcome.result.exitCode == 0, "login: \(outcome.result) events \(outcome.eventNames)")
        let url = try #require(outcome.events.first { $0["event"]?.stringValue == "authorization_url" }?["url"]?.stringValue)
        let query = String(url.split(separator: "?", maxSplits: 1).last ?? "")
        #expect(
            query.split(separator: "&").map { String($0.split(separator: "=").first ?? "") }
                == ["client_id", "request_uri", "response_type", "scope", "redirect_uri", "prompt"], "\(url)")
        let log = ServerLog.read(tls ? env.base.proxyLogTLS : env.base.proxyLog, since: started)
        let pushes = log.filter { $0.path.hasSuffix("/par/par") }
        #expect(pushes.count == 1 && pushes.first?.status == 201, "\(pushes.map(\.raw))")
        // OpenID Connect Core §6.2: the repeated values are the pushed ones (and consent is asked for offline access).
        #expect(pushes.first?.param("response_type") == "code" && pushes.first?.param("scope") == "openid offline_access profile")
        #expect(query.contains("response_type=code") && pushes.first?.param("prompt") == "consent", "\(url)")
        #expect(query.contains("prompt=consent") && pushes.first?.param("redirect_uri") == env.redirectURI, "\(url)")
        #expect(
            pushes.first?.param("code_challenge_method") == "S256" && pushes.first?.param("state") != nil
                && pushes.first?.param("nonce") != nil)
        let claims = try ws.latchkey.run(["claims"])
        #expect(claims.exitCode == 0 && claims.stdoutText.contains("\"nonce\""), "claims: \(claims)")
    }

    @Test("PAR required: --par never fails clearly before anything is pushed (exit 2)")
    func parRequiredNever() throws {
        let env = try IssueSixteenEnvironment.load()
        let ws = try Workspace.glewlwyd(env.base)
        let started = wallClock()
        let result = try ws.latchkey.run([
            "login", "--issuer", env.issuerPAR, "--client-id", env.clientPAR, "--flow", "browser",
            "--redirect-uri", env.redirectURI, "--par", "never", "--timeout", "5"
        ])
        #expect(result.exitCode == 2, "\(result)")
        #expect(result.stderrText.contains("require_pushed_authorization_requests"), "\(result.stderrText)")
        // Only this plugin's requests: the log is shared with the suites running beside this one.
        #expect(
            ServerLog.read(env.base.proxyLog, since: started).filter { $0.path.hasPrefix("/api/par/") }
                .allSatisfy { $0.path.contains("/.well-known/") })
    }

    @Test("an expired request_uri (2 s) is a clear expiry (exit 5)")
    func expiredRequestURI() throws {
        let env = try IssueSixteenEnvironment.load()
        let ws = try Workspace.glewlwyd(env.base)
        let result = try ws.latchkey.run(
            [
                "login", "--issuer", env.issuerPARShort, "--client-id", env.clientPAR, "--flow", "browser",
                "--scope", "openid profile", "--redirect-uri", env.redirectURI
            ], timeout: .seconds(30))
        #expect(result.exitCode == 5, "\(result)")
        #expect(result.stderrText.contains("pushed authorization request expired"), "\(result.stderrText)")
        #expect(result.elapsed < .seconds(10))
    }

    @Test("--resource on a device login: the access token's aud is the resource, kept after refresh")
    func resourceAudience() throws {
        let env = try IssueSixteenEnvironment.load()
        let ws = try Workspace.glewlwyd(env.base)
        let started = wallClock()
        let login = try GlewlwydDeviceFlowTests.login(
            ws, env.base, issuer: env.issuerResource, client: env.base.clientRS256,
            extra: ["--resource", env.resource])
        #expect(login.result.exitCode == 0, "login: \(login.result)")
        let first = try ws.latchkey.run(["token"]).stdoutText.trimmed
        #expect(accessTokenAudience(first) == env.resource)
        let refreshed = try ws.latchkey.run(["refresh"])
        #expect(refreshed.exitCode == 0, "\(refreshed)")
        let second = try ws.latchkey.run(["token"]).stdoutText.trimmed
        #expect(second != first && accessTokenAudience(second) == env.resource)
        // The proxy log is shared with the suites running beside this one: only this plugin's requests.
        let log = ServerLog.read(env.base.proxyLog, since: started).filter { $0.path.hasPrefix("/api/resource/") }
        let devices = log.filter { $0.path.hasSuffix("/device_authorization") }
        let refreshes = log.filter(\.isRefresh)
        #expect(!devices.isEmpty && devices.allSatisfy { $0.param("resource") == env.resource })
        #expect(!refreshes.isEmpty && refreshes.allSatisfy { $0.param("resource") == env.resource })
        // Without --resource, the profile remembers it.
        let profile = FileText.read(ws.latchkey.stateDirectory + "/profiles/default.json") ?? ""
        #expect(profile.contains(env.resource))
    }

    @Test("an unknown resource is refused with invalid_target (exit 7), named in the message")
    func unknownResource() throws {
        let env = try IssueSixteenEnvironment.load()
        let ws = try Workspace.glewlwyd(env.base)
        let result = try ws.latchkey.run(
            [
                "login", "--issuer", env.issuerResource, "--client-id", env.base.clientRS256,
                "--scope", env.base.scope, "--resource", "https://unknown.example/api"
            ], timeout: .seconds(30))
        #expect(result.exitCode == 7, "\(result)")
        #expect(result.stderrText.contains("invalid_target"), "\(result.stderrText)")
    }
}
