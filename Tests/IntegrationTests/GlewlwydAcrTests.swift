import LatchkeyJOSE
import LatchkeyTestSupport
import Testing

/// What Glewlwyd 2.7.5 does with `acr_values` (issue 35, docs/providers.md): it takes them on the
/// device authorization request and answers with an ID token that has no `acr`. latchkey must
/// refuse that answer (OpenID Connect Core §3.1.2.1: the `acr` asked for is then required).
@Suite("Glewlwyd and acr_values", .serialized)
struct GlewlwydAcrTests {
    @Test("login --acr-values at Glewlwyd: an ID token without acr is exit 8, and no session is kept")
    func acrValuesUnanswered() throws {
        let env = try IntegrationEnvironment.load()
        let ws = try Workspace.glewlwyd(env)
        let started = wallClock()
        let outcome = try GlewlwydDeviceFlowTests.login(
            ws, env, issuer: env.issuerTLS, client: env.clientRS256, extra: ["--acr-values", "urn:example:mfa"])
        #expect(outcome.result.exitCode == 8, "\(outcome.result)")
        #expect(outcome.result.stderrText.contains("acr is missing"), "\(outcome.result.stderrText)")
        let device = ServerLog.read(env.proxyLogTLS, since: started).first { $0.path.hasSuffix("/device_authorization") }
        #expect(device?.param("acr_values") == "urn:example:mfa", "sent as an extension parameter")
        #expect(try ws.latchkey.run(["status"]).exitCode == 3, "the refused answer is not a session")
    }
}
