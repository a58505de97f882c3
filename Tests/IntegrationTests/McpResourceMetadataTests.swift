import Glibc
import LatchkeyJOSE
import LatchkeyTestSupport
import Testing

/// The resources Tests/Harness/mcp/start-mcp.sh started: the `mcp` SDK's RFC 9728 metadata and
/// 401s, in front of Glewlwyd's `resource` plugin (plain, naming the issuer with a trailing `/`;
/// TLS, naming it exactly).
struct McpEnvironment {
    let glewlwyd: IntegrationEnvironment
    /// The resource identifiers (`http://127.0.0.1:P/api`, `https://localhost:Q/api`).
    let resource: String, resourceTLS: String
    /// The issuers their metadata names, as written there, and as Glewlwyd's discovery spells them.
    let namedIssuer: String, namedIssuerTLS: String
    let issuer: String, issuerTLS: String
    /// The resources' request logs (one JSON line per request; `authorization` is the scheme only).
    let log: String, logTLS: String

    static func load() throws -> McpEnvironment {
        func v(_ name: String) throws -> String { try Requirement.environmentValue("LATCHKEY_IT_" + name) }
        return McpEnvironment(
            glewlwyd: try IntegrationEnvironment.load(),
            resource: try v("MCP_RESOURCE"), resourceTLS: try v("MCP_RESOURCE_TLS"),
            namedIssuer: try v("MCP_ISSUER"), namedIssuerTLS: try v("MCP_ISSUER_TLS"),
            issuer: try v("ISSUER_RESOURCE"), issuerTLS: try v("ISSUER_RESOURCE_TLS"),
            log: try v("MCP_LOG"), logTLS: try v("MCP_LOG_TLS"))
    }

    func side(tls: Bool) -> (resource: String, named: String, issuer: String, log: String, proxyLog: String) {
        tls
            ? (resourceTLS, namedIssuerTLS, issuerTLS, logTLS, glewlwyd.proxyLogTLS)
            : (resource, namedIssuer, issuer, log, glewlwyd.proxyLog)
    }
}

/// `fetch` that finds its own way (issue 35, RFC 9728) against real parts: the `mcp` Python SDK
/// 2.3.0 as the resource, Glewlwyd 2.7.5 as the authorization server it names.
@Suite("mcp SDK resource in front of Glewlwyd (RFC 9728)", .serialized)
struct McpResourceMetadataTests {
    /// Runs `--json fetch --sign-in` and plays the person: approves the user code of the device
    /// login's `verification` event (on stderr: stdout is the answer's only) at `issuer`.
    static func fetchSigningIn(
        _ ws: Workspace, _ env: McpEnvironment, url: String, issuer: String, extra: [String] = []
    ) throws -> ProcessResult {
        let child = try ws.latchkey.start(
            ["--json", "fetch", "--sign-in", "--client-id", env.glewlwyd.clientRS256] + extra + [url])
        defer { child.terminate() }
        let deadline = ContinuousClock.now + .seconds(60)
        var approved = false
        while !approved && child.isRunning && ContinuousClock.now < deadline {
            let stderr = String(decoding: child.outputSoFar().stderr, as: UTF8.self)
            let lines = stderr.split(separator: "\n").map(String.init)
            if let event = JSONLines.objects(lines).first(where: { $0["event"]?.stringValue == "verification" }) {
                let code = try #require(event["user_code"]?.stringValue)
                let approval = try env.glewlwyd.approve(userCode: code, issuer: issuer)
                #expect(approval.exitCode == 0, "approve.py: \(approval) \(approval.stdoutText)")
                approved = true
            } else {
                usleep(50_000)
            }
        }
        let remaining = deadline - ContinuousClock.now
        return child.waitForExit(timeout: remaining > .zero ? remaining : .seconds(1))
    }

    @Test("fetch, not signed in: exit 3 naming the issuer the resource trusts; no token sent, nothing interactive")
    func notSignedIn() throws {
        let env = try McpEnvironment.load()
        let ws = try Workspace.glewlwyd(env.glewlwyd)
        let started = wallClock()
        // A path below the resource: the SDK's 401 names the metadata of /api, a prefix at a `/`.
        let url = env.resource + "/tools?page=1"
        let result = try ws.latchkey.run(["fetch", url])
        #expect(result.exitCode == 3, "\(result)")
        #expect(result.stdout.isEmpty, "the 401's body is not the answer: \(result.stdoutText)")
        // The issuer as the metadata writes it (the trailing `/`), and the login that would follow.
        #expect(result.stderrText.contains("trusts \(env.namedIssuer) "), "\(result.stderrText)")
        #expect(
            result.stderrText.contains("login --resource-url \(env.resource)/tools --client-id ID"), "\(result.stderrText)")
        let hits = ServerLog.read(env.log, since: started)
        #expect(hits.map(\.path) == ["/api/tools", "/.well-known/oauth-protected-resource/api"], "\(hits.map(\.raw))")
        #expect(hits.allSatisfy { ($0.raw["authorization"] ?? .null) == .null }, "no token to send: \(hits.map(\.raw))")
        let atIssuer = ServerLog.read(env.glewlwyd.proxyLog, since: started).filter { $0.path.hasPrefix("/api/resource/") }
        #expect(atIssuer.isEmpty, "without --sign-in nothing starts at the issuer: \(atIssuer.map(\.raw))")
    }

    @Test(
        "fetch --sign-in: a device login with resource= at the issuer the metadata names, then the answer",
        arguments: [false, true])
    func signInAndFetch(tls: Bool) throws {
        let env = try McpEnvironment.load()
        let side = env.side(tls: tls)
        let ws = try Workspace.glewlwyd(env.glewlwyd)
        let started = wallClock()
        let result = try Self.fetchSigningIn(ws, env, url: side.resource + "/tools", issuer: side.issuer)
        try #require(result.exitCode == 0, "\(result)")
        let answer = try JSONParser().parseObject(result.stdout)
        #expect(answer["resource"] == .string("mcp"), "stdout is the resource's answer only: \(result.stdoutText)")
        // The SDK's BearerAuthBackend let the token in only because its `aud` is this resource.
        #expect(answer["audience"] == .string(side.resource), "\(answer)")
        #expect(result.stderrText.contains(#""event":"authorized""#), "the login's events on stderr: \(result.stderrText)")

        let glewlwyd = ServerLog.read(side.proxyLog, since: started)
        let device = try #require(glewlwyd.first { $0.path.hasSuffix("/api/resource/device_authorization") }, "\(glewlwyd.map(\.raw))")
        #expect(device.param("resource") == side.resource)
        #expect(device.param("scope") == "openid profile", "scopes_supported plus openid")
        // The session remembers the issuer as Glewlwyd's own metadata spells it (no trailing `/`).
        let status = try JSONParser().parseObject(try ws.latchkey.run(["--json", "status"]).stdout)
        #expect(status["issuer"] == .string(side.issuer), "\(status)")

        // Signed in now: the next fetch sends the cached token at once, no metadata round trip.
        let marker = wallClock()
        let second = try ws.latchkey.run(["fetch", side.resource])
        #expect(second.exitCode == 0, "\(second)")
        let hits = ServerLog.read(side.log, since: marker)
        #expect(hits.map(\.path) == ["/api"] && hits.first?.raw["authorization"] == .string("Bearer"), "\(hits.map(\.raw))")
    }

    @Test("a profile signed in at another issuer: exit 3, and --sign-in never switches it")
    func anotherIssuerIsNotSwitched() throws {
        let env = try McpEnvironment.load()
        let ws = try Workspace.glewlwyd(env.glewlwyd)
        let login = try GlewlwydDeviceFlowTests.login(
            ws, env.glewlwyd, issuer: env.glewlwyd.issuer, client: env.glewlwyd.clientRS256, extra: ["--dpop", "never"])
        try #require(login.result.exitCode == 0, "login: \(login.result)")
        let started = wallClock()
        let result = try ws.latchkey.run(["fetch", env.resource])
        #expect(result.exitCode == 3, "\(result)")
        #expect(
            result.stderrText.contains("trusts \(env.namedIssuer), not \(env.glewlwyd.issuer) where profile"),
            "\(result.stderrText)")
        let switching = try ws.latchkey.run(["fetch", "--sign-in", env.resource])
        #expect(switching.exitCode == 3, "\(switching)")
        #expect(switching.stderrText.contains("use another profile"), "\(switching.stderrText)")
        // Nothing at the issuer the resource names: no device login, and the profile's token never
        // went there (it went only to the resource the user asked for, which refused it).
        let atNamed = ServerLog.read(env.glewlwyd.proxyLog, since: started).filter { $0.path.hasPrefix("/api/resource/") }
        #expect(atNamed.isEmpty, "\(atNamed.map(\.raw))")
        let status = try JSONParser().parseObject(try ws.latchkey.run(["--json", "status"]).stdout)
        #expect(status["issuer"] == .string(env.glewlwyd.issuer), "the profile still signed in where it was: \(status)")
    }
}
