import Glibc
import LatchkeyJOSE
import LatchkeyTestSupport
import Testing

/// The idpyoidc 5.0.0 providers of Tests/Harness/idpyoidc (start-idpyoidc.sh): plain HTTP and TLS,
/// PAR advertised, one public client with PKCE, a scripted user signed in at once.
struct IdpyoidcEnvironment {
    let issuer: String, issuerTLS: String, caFile: String, client: String, log: String, logTLS: String

    static func load() throws -> IdpyoidcEnvironment {
        let env = HostEnvironment.current
        func v(_ name: String) throws -> String {
            try Requirement.environmentValue("LATCHKEY_IT_IDPYOIDC_" + name, environment: env)
        }
        return IdpyoidcEnvironment(
            issuer: try v("ISSUER"), issuerTLS: try v("ISSUER_TLS"), caFile: try v("CA_FILE"),
            client: try v("CLIENT"), log: try v("LOG"), logTLS: try v("LOG_TLS"))
    }
}

/// PAR (RFC 9126) at an OpenID-strict provider: idpyoidc checks the authorization URL's own
/// parameters as a whole OpenID request before it reads the pushed one, so `--par auto` logs in
/// there only when the URL repeats `response_type`, `scope`, `redirect_uri` and, for offline
/// access, `prompt` beside `request_uri`.
@Suite("idpyoidc 5.0.0 PAR", .serialized)
struct IdpyoidcPARTests {
    static func curl() throws -> String {
        try Requirement.requireOrSkip(access("/usr/bin/curl", X_OK) == 0 ? "/usr/bin/curl" : nil, "curl is not installed")
    }

    /// The names and values of a URL's query, in order (`+` and `%XX` decoded).
    static func query(_ url: String) -> [(String, String)] {
        func decoded(_ part: Substring) -> String {
            var bytes: [UInt8] = []
            var utf8 = Array(part.utf8)[...]
            while let byte = utf8.popFirst() {
                if byte == UInt8(ascii: "%"), utf8.count >= 2, let value = UInt8(String(decoding: utf8.prefix(2), as: UTF8.self), radix: 16)
                {
                    bytes.append(value)
                    utf8 = utf8.dropFirst(2)
                } else {
                    bytes.append(byte == UInt8(ascii: "+") ? UInt8(ascii: " ") : byte)
                }
            }
            return String(decoding: bytes, as: UTF8.self)
        }
        let text = url.split(separator: "?", maxSplits: 1).dropFirst().first ?? ""
        return text.split(separator: "&").map { pair in
            let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            return (decoded(parts[0]), parts.count > 1 ? decoded(parts[1]) : "")
        }
    }

    @Test("--par auto code-flow login, then a refresh (plain HTTP and TLS)", arguments: [false, true])
    func parAutoLogin(tls: Bool) throws {
        let env = try IdpyoidcEnvironment.load()
        let curl = try Self.curl()
        let issuer = tls ? env.issuerTLS : env.issuer
        let ws = try Workspace(extraEnvironment: ["LATCHKEY_CA_FILE": env.caFile])
        let started = wallClock()
        let login = DeviceLogin(
            latchkey: ws.latchkey,
            arguments: [
                "--issuer", issuer, "--client-id", env.client, "--flow", "browser", "--par", "auto", "--timeout", "60"
            ])
        let outcome = try login.run(timeout: .seconds(90), trigger: "authorization_url") { event, _ in
            let url = try #require(event["url"]?.stringValue)
            // The scripted user: the authorization endpoint answers with the redirect at once.
            let browser = try ProcessRunner.run(
                curl,
                [
                    "-s", "-L", "--cacert", env.caFile, "-o", "/dev/null",
                    "-w", "%{http_code}", url
                ])
            #expect(browser.stdoutText == "200", "browser: \(browser)")
        }
        #expect(outcome.result.exitCode == 0, "login: \(outcome.result) events \(outcome.eventNames)")
        let authorized = outcome.events.first { $0["event"]?.stringValue == "authorized" }
        #expect(authorized?["id_token_verified"] == .bool(true), "\(outcome.eventNames)")

        let url = try #require(outcome.events.first { $0["event"]?.stringValue == "authorization_url" }?["url"]?.stringValue)
        let query = Self.query(url)
        #expect(query.map(\.0) == ["client_id", "request_uri", "response_type", "scope", "redirect_uri", "prompt"], "\(url)")
        let log = ServerLog.read(tls ? env.logTLS : env.log, since: started)
        let pushes = log.filter { $0.path == "/par" }
        #expect(pushes.count == 1 && pushes.first?.status == 201, "\(log.map(\.raw))")
        for (name, value) in query where name != "request_uri" {
            #expect(pushes.first?.param(name) == value, "\(name) in the URL is not the pushed value")
        }
        #expect(pushes.first?.param("code_challenge_method") == "S256")
        #expect(log.contains { $0.path == "/authorization" && $0.status == 302 }, "\(log.map(\.raw))")
        #expect(log.contains { $0.path == "/token" && $0.status == 200 && $0.grantType == "authorization_code" })

        let refreshed = try ws.latchkey.run(["refresh"])
        #expect(refreshed.exitCode == 0, "refresh: \(refreshed)")
    }
}
