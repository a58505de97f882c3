import LatchkeyTestSupport
import Testing

/// The three issuer-URL mistakes people make, against the real Glewlwyd and its stunnel front:
/// each names the likely mistake instead of "check the network" (issue 27, item 5).
@Suite("Issuer URL mistakes")
struct IssuerURLMistakeTests {
    func discover(_ issuer: String, _ env: IntegrationEnvironment) throws -> ProcessResult {
        try withCLI { cli in try cli.run(["discover", "--issuer", issuer, "--ca-file", env.caFile]) }
    }

    func withCLI<T>(_ body: (LatchkeyCommand) throws -> T) throws -> T {
        let dir = try TemporaryDirectory()
        defer { dir.remove() }
        return try body(try LatchkeyCommand(stateDirectory: dir.path + "/state"))
    }

    func firstLine(_ result: ProcessResult) -> String {
        result.stderrText.split(separator: "\n").first.map(String.init) ?? ""
    }

    @Test("the discovery document's URL given as the issuer: exit 2, naming the issuer")
    func wellKnownURLAsIssuer() throws {
        let env = try IntegrationEnvironment.load()
        for suffix in ["/.well-known/openid-configuration", "/.well-known/openid-configuration/"] {
            let r = try discover(env.issuer + suffix, env)
            #expect(r.exitCode == 2, "\(r)")
            #expect(firstLine(r) == "latchkey: \(env.issuer + suffix) is the discovery document's URL; the issuer is \(env.issuer)", "\(r)")
        }
        // RFC 8414 puts the well-known segment before the issuer's path.
        let origin = String(env.issuer.prefix { $0 != "/" }) + "//" + env.issuer.dropFirst("http://".count).prefix { $0 != "/" }
        let path = String(env.issuer.dropFirst(origin.count))
        let rfc8414 = origin + "/.well-known/oauth-authorization-server" + path
        let r = try discover(rfc8414, env)
        #expect(r.exitCode == 2, "\(r)")
        #expect(firstLine(r) == "latchkey: \(rfc8414) is the discovery document's URL; the issuer is \(env.issuer)", "\(r)")
    }

    @Test("http:// on the TLS port: the server speaks TLS here")
    func plainHTTPOnTheTLSPort() throws {
        let env = try IntegrationEnvironment.load()
        let issuer = "http://" + env.issuerTLS.dropFirst("https://".count)
        let hostPort = issuer.dropFirst("http://".count).prefix { $0 != "/" }
        let r = try discover(issuer, env)
        #expect(r.exitCode == 6, "\(r)")
        #expect(firstLine(r) == "latchkey: cannot talk to \(hostPort): the server speaks TLS here: use https://", "\(r)")
        #expect(!r.stderrText.contains("check the network"), "\(r)")
    }

    @Test("https:// on the plain port: the server does not speak TLS here")
    func tlsOnThePlainPort() throws {
        let env = try IntegrationEnvironment.load()
        let issuer = "https://" + env.issuer.dropFirst("http://".count)
        let hostPort = issuer.dropFirst("https://".count).prefix { $0 != "/" }
        let r = try discover(issuer, env)
        #expect(r.exitCode == 6, "\(r)")
        #expect(
            firstLine(r) == "latchkey: cannot talk to \(hostPort): the server does not speak TLS here (it answered in plain text)", "\(r)")
        #expect(!r.stderrText.contains("check the network"), "\(r)")
    }
}
