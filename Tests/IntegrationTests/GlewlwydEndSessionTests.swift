import Glibc
import LatchkeyJOSE
import LatchkeyTestSupport
import Testing

/// `logout --end-session` against Glewlwyd over TLS (plugin `endsession`: session management on,
/// client `latchkey-endsession` with a registered post_logout_redirect_uri). alice signs the device
/// in from one browser (Tests/Harness/idp/end_session_browser.py keeps her cookies), and the
/// printed URL is then opened in that same browser.
///
/// Measured Glewlwyd 2.7.5 behaviour: with a valid `id_token_hint` the endpoint answers 302 to its
/// own login page with `prompt=end_session` and the `sid` of the session the ID token names; the
/// session ends when she confirms there (the page deletes that sid and her sign-in). The bare GET
/// alone ends nothing yet. Without the hint it answers 200 with an empty body and ends nothing.
@Suite("Glewlwyd RP-initiated logout", .serialized)
struct GlewlwydEndSessionTests {
    /// alice's browser, driven line by line.
    final class Browser {
        let process: ChildProcess
        init(issuer: String, env: IntegrationEnvironment) throws {
            let script = try Requirement.environmentValue("LATCHKEY_IT_END_SESSION_BROWSER")
            process = try ChildProcess.spawn(
                env.python, [script, "--issuer", issuer, "--ca-file", env.caFile],
                environment: HostEnvironment.current, stdin: .pipe)
        }
        func ask(_ command: String) throws -> JSONObject {
            #expect(process.write(Array((command + "\n").utf8)))
            let line = try #require(process.nextLine(timeout: .seconds(30)), "no answer to \(command.prefix(40))")
            return try JSONParser().parseObject(Array(line.utf8))
        }
        /// The status of `GET /api/profile_list` with her cookies (200 while her session lives).
        var sessionStatus: String? {
            if case .number(let n)? = (try? ask("session"))?["session_status"] { return n }
            return nil
        }
        deinit { process.terminate() }
    }

    /// The query of `url` as raw (still percent-encoded) name → value pairs, in order.
    static func query(_ url: String) -> [(String, String)] {
        guard let q = url.split(separator: "?", maxSplits: 1).dropFirst().first else { return [] }
        return q.split(separator: "&").map { pair in
            let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            return (String(parts[0]), parts.count > 1 ? String(parts[1]) : "")
        }
    }

    @Test("the URL is Glewlwyd's end_session_endpoint; with --id-token-hint it ends alice's session there, without it nothing ends")
    func endSessionAtGlewlwyd() throws {
        let env = try IntegrationEnvironment.load()
        let issuer = try Requirement.environmentValue("LATCHKEY_IT_ISSUER_END_SESSION_TLS")
        let client = try Requirement.environmentValue("LATCHKEY_IT_CLIENT_END_SESSION")
        let redirect = try Requirement.environmentValue("LATCHKEY_IT_END_SESSION_REDIRECT")
        let browser = try Browser(issuer: issuer, env: env)
        let ws = try Workspace.glewlwyd(env)
        let login = try DeviceLogin(
            latchkey: ws.latchkey,
            arguments: [
                "--issuer", issuer, "--client-id", client, "--scope", env.scope, "--dpop", "never",
                "--post-logout-redirect-uri", redirect
            ]
        ).run { event, _ in
            let approved = try browser.ask("approve " + (try #require(event["user_code"]?.stringValue)))
            #expect(approved["approved"] == .bool(true), "\(approved)")
        }
        try #require(login.result.exitCode == 0, "login: \(login.result)")
        #expect(browser.sessionStatus == "200", "alice is signed in at Glewlwyd")
        let idToken = try #require(try ws.latchkey.run(["id-token"]).stdoutLines.first)
        let sid = try #require(
            try JSONParser().parseObject(try ws.latchkey.run(["claims"]).stdout)["sid"]?.stringValue,
            "session management puts sid in the ID token")
        let metadata = try ProcessRunner.run("/usr/bin/curl", ["-s", "--cacert", env.caFile, issuer + "/.well-known/openid-configuration"])
        let endpoint = try #require(try JSONParser().parseObject(metadata.stdout)["end_session_endpoint"]?.stringValue)
        #expect(endpoint == issuer + "/end_session")
        let encodedRedirect = "http%3A%2F%2F127.0.0.1%3A53682%2Fsigned-out"

        // Without the hint (from a copy of the state, without revoking, so the session stays usable).
        let copy = try ws.snapshot()
        let plain = try copy.latchkey.run(["--json", "logout", "--no-revoke", "--end-session", "--no-qr"])
        #expect(plain.exitCode == 0, "\(plain)")
        let plainURL = try #require(try JSONParser().parseObject(plain.stdout)["url"]?.stringValue)
        #expect(plainURL.hasPrefix(endpoint + "?"), "\(plainURL)")
        let plainQuery = Self.query(plainURL)
        #expect(plainQuery.map(\.0) == ["client_id", "post_logout_redirect_uri", "state"], "\(plainQuery)")
        #expect(plainQuery.first { $0.0 == "client_id" }?.1 == client)
        #expect(plainQuery.first { $0.0 == "post_logout_redirect_uri" }?.1 == encodedRedirect)
        #expect((plainQuery.first { $0.0 == "state" }?.1.count ?? 0) >= 22)
        let ignored = try browser.ask("open " + plainURL)
        #expect(
            ignored["status"] == .number("200") && ignored["body"] == .string("") && ignored["location"] == .string(""),
            "\(ignored)")
        #expect(browser.sessionStatus == "200", "without the hint Glewlwyd ends nothing")

        // With the hint: revocation and local deletion as always, then the URL.
        let started = wallClock()
        let hinted = try ws.latchkey.run(["--json", "logout", "--end-session", "--id-token-hint", "--no-qr"])
        #expect(hinted.exitCode == 0, "\(hinted)")
        #expect(
            ServerLog.read(env.proxyLogTLS, since: started).contains { $0.path.hasSuffix("/endsession/revoke") },
            "tokens revoked under the same logout")
        #expect(try ws.latchkey.run(["token"]).exitCode == 3)
        let url = try #require(try JSONParser().parseObject(hinted.stdout)["url"]?.stringValue)
        #expect(url.hasPrefix(endpoint + "?"), "\(url)")
        let query = Self.query(url)
        #expect(query.map(\.0) == ["id_token_hint", "client_id", "post_logout_redirect_uri", "state"], "\(query)")
        #expect(query.first { $0.0 == "id_token_hint" }?.1 == idToken)
        #expect(query.first { $0.0 == "state" }?.1 != plainQuery.first { $0.0 == "state" }?.1, "a fresh state each time")

        // A tampered hint identifies no session: Glewlwyd's page gets no sid.
        let tampered = try browser.ask("open " + url.replacingFirst("id_token_hint=ey", with: "id_token_hint=eX"))
        #expect(tampered["location"]?.stringValue?.contains("sid=") == false, "\(tampered)")

        let answer = try browser.ask("open " + url)
        #expect(answer["status"] == .number("302"), "\(answer)")
        let page = try #require(answer["location"]?.stringValue)
        let pageQuery = Self.query(page)
        #expect(page.hasPrefix(String(issuer.dropLast("/api/endsession".count)) + "/login.html?"), "\(page)")
        #expect(pageQuery.first { $0.0 == "prompt" }?.1 == "end_session", "\(page)")
        #expect(pageQuery.first { $0.0 == "sid" }?.1 == sid, "the session the ID token names: \(page)")
        #expect(pageQuery.first { $0.0 == "client_id" }?.1 == client)
        // She confirms on that page; her session at Glewlwyd is over.
        let confirmed = try browser.ask("confirm " + page)
        #expect(confirmed["session_delete"] == .number("200") && confirmed["auth_delete"] == .number("200"), "\(confirmed)")
        #expect(browser.sessionStatus == "401", "alice's session no longer works")
    }
}

extension String {
    /// `self` with the first occurrence of `target` replaced (tests only need this once).
    fileprivate func replacingFirst(_ target: String, with replacement: String) -> String {
        let chars = Array(self), t = Array(target)
        guard !t.isEmpty, chars.count >= t.count else { return self }
        for i in 0...(chars.count - t.count) where Array(chars[i..<(i + t.count)]) == t {
            return String(chars[..<i]) + replacement + String(chars[(i + t.count)...])
        }
        return self
    }
}
