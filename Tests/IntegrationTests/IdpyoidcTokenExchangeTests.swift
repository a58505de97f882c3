import Glibc
import LatchkeyJOSE
import LatchkeyTestSupport
import Testing

/// RFC 8693 token exchange at idpyoidc 5.0.0 (Tests/Harness/idpyoidc: the exchange helper with a
/// policy allowing the audiences `billing-api` and `reports-api` and the resource
/// `https://billing.example/api`). The subject comes from a code + PKCE sign-in of the scripted
/// user; exchanges are counted in the server's own request log.
@Suite("idpyoidc 5.0.0 token exchange", .serialized)
struct IdpyoidcTokenExchangeTests {
    static let exchangeGrant = "urn:ietf:params:oauth:grant-type:token-exchange"

    struct Setup {
        let env: IdpyoidcEnvironment
        let ws: Workspace
        let issuer: String
        let log: String
        let started: Double

        /// The exchanges the server answered since the workspace signed in, and with which status.
        var exchanges: [LoggedRequest] {
            ServerLog.read(log, since: started).filter { $0.path == "/token" && $0.grantType == IdpyoidcTokenExchangeTests.exchangeGrant }
        }
    }

    /// A workspace signed in at the plain or the TLS provider with the browser flow, the scripted
    /// user answering at once; `secretFile` makes it the confidential client.
    static func signedIn(tls: Bool, secretFile: String? = nil) throws -> Setup {
        let env = try IdpyoidcEnvironment.load()
        let curl = try IdpyoidcPARTests.curl()
        let client = secretFile == nil ? env.client : try Requirement.environmentValue("LATCHKEY_IT_IDPYOIDC_EXCHANGE_CLIENT")
        let issuer = tls ? env.issuerTLS : env.issuer
        let ws = try Workspace(extraEnvironment: ["LATCHKEY_CA_FILE": env.caFile])
        let started = wallClock()
        var arguments = ["--issuer", issuer, "--client-id", client, "--flow", "browser", "--timeout", "60"]
        if let secretFile { arguments += ["--client-secret-file", secretFile, "--auth-method", "client_secret_post"] }
        let login = DeviceLogin(latchkey: ws.latchkey, arguments: arguments)
        let outcome = try login.run(timeout: .seconds(90), trigger: "authorization_url") { event, _ in
            let url = try #require(event["url"]?.stringValue)
            let browser = try ProcessRunner.run(curl, ["-s", "-L", "--cacert", env.caFile, "-o", "/dev/null", "-w", "%{http_code}", url])
            #expect(browser.stdoutText == "200", "browser: \(browser)")
        }
        try #require(outcome.result.exitCode == 0, "login: \(outcome.result) events \(outcome.eventNames)")
        return Setup(env: env, ws: ws, issuer: issuer, log: tls ? env.logTLS : env.log, started: started)
    }

    /// The claims of a compact JWT, unverified (the test reads what the server put in it).
    static func claims(_ jwt: String) throws -> JSONObject {
        let parts = jwt.split(separator: ".", omittingEmptySubsequences: false)
        try #require(parts.count == 3, "not a JWT: \(jwt.prefix(20))…")
        return try JSONParser().parseObject(try Base64URL.decode(parts[1]))
    }

    static func json(_ result: ProcessResult) throws -> JSONObject {
        try JSONParser().parseObject(Array(result.stdoutText.utf8))
    }

    static func writeFile(_ path: String, _ text: String, mode: mode_t = 0o600) throws {
        let fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
        try #require(fd >= 0)
        _ = Array(text.utf8).withUnsafeBytes { Glibc.write(fd, $0.baseAddress, $0.count) }
        close(fd)
        chmod(path, mode)
    }

    @Test("audiences, scope, token types, subjects and the cache over TLS with the public client")
    func exchangesOverTLS() throws {
        let s = try Self.signedIn(tls: true)
        let latchkey = s.ws.latchkey

        // An allowed audience: the issued JWT names it.
        let allowed = try latchkey.run(["exchange", "--audience", "billing-api", "--format", "json"])
        #expect(allowed.exitCode == 0, "\(allowed)")
        let issued = try Self.json(allowed)
        let token = try #require(issued["token"]?.stringValue)
        #expect(try Self.claims(token)["aud"] == .array([.string("billing-api")]))
        #expect(issued["issued_token_type"] == .string("urn:ietf:params:oauth:token-type:access_token"))
        #expect(issued["token_type"] == .string("Bearer") && issued["audience"] == .array([.string("billing-api")]))
        #expect(s.exchanges.count == 1)

        // A second process finds it in the token file: no second exchange.
        let again = try latchkey.run(["exchange", "--audience", "billing-api"])
        #expect(again.exitCode == 0 && again.stdoutText == token + "\n", "\(again)")
        #expect(s.exchanges.count == 1, "statuses \(s.exchanges.map { $0.status ?? 0 })")

        // A refused audience: exit 7 naming it.
        let refused = try latchkey.run(["exchange", "--audience", "payroll-api"])
        #expect(refused.exitCode == 7, "\(refused)")
        #expect(refused.stderrText.contains("payroll-api") && refused.stderrText.contains("invalid_target"), "\(refused.stderrText)")

        // A narrower scope narrows.
        let narrow = try latchkey.run(["exchange", "--audience", "reports-api", "--scope", "openid", "--format", "json"])
        #expect(narrow.exitCode == 0, "\(narrow)")
        let narrowToken = try #require(try Self.json(narrow)["token"]?.stringValue)
        #expect(try Self.claims(narrowToken)["scope"] == .string("openid"))
        #expect(try Self.json(narrow)["scope"] == .string("openid"))

        // A refresh token and an ID token: token_type N_A; the ID token's exp (300 s) wins over
        // the expires_in idpyoidc copies from the subject (about 3600 s).
        let refresh = try latchkey.run(["exchange", "--requested-token-type", "refresh_token", "--format", "json"])
        #expect(refresh.exitCode == 0, "\(refresh)")
        #expect(try Self.json(refresh)["token_type"] == .string("N_A"))
        #expect(try Self.json(refresh)["issued_token_type"] == .string("urn:ietf:params:oauth:token-type:refresh_token"))
        let before = wallClock()
        let id = try latchkey.run(["-v", "exchange", "--requested-token-type", "id_token", "--format", "json"])
        #expect(id.exitCode == 0, "\(id)")
        let idAnswer = try Self.json(id)
        #expect(idAnswer["token_type"] == .string("N_A"))
        let idToken = try #require(idAnswer["token"]?.stringValue)
        let exp = try #require(try Self.claims(idToken)["exp"]?.doubleValue)
        #expect(exp - before < 400, "the ID token lives 300 s")
        let expiresAt = try #require(idAnswer["expires_at"]?.stringValue)
        #expect(expiresAt == Self.rfc3339(exp), "expires_at \(expiresAt) is not the JWT's exp \(exp)")
        let copied = ServerLog.read(s.log, since: before).filter { $0.grantType == Self.exchangeGrant }
        #expect(copied.count == 1)
        // What the server said (`-v` shows the answer, the token redacted): the subject's lifetime.
        let answerLine = try #require(id.stderrText.split(separator: "\n").first { $0.contains("\"issued_token_type\"") })
        let answer = try JSONParser().parseObject(Array(answerLine.drop { $0 != "{" }.utf8))
        let expiresIn = try #require(answer["expires_in"]?.doubleValue)
        #expect(expiresIn > 1000, "idpyoidc copies the subject's expires_in (\(expiresIn) s)")
        #expect(!id.stderrText.contains(idToken), "-v redacts the issued token")

        // Quirk: `resource` alone is checked against the policy, then dropped from `aud`.
        let resourceOnly = try latchkey.run(["exchange", "--resource", "https://billing.example/api", "--no-cache"])
        #expect(resourceOnly.exitCode == 0, "\(resourceOnly)")
        let resourceToken = String(resourceOnly.stdoutText.split(separator: "\n").first ?? "")
        #expect(try Self.claims(resourceToken)["aud"] == .array([.string(s.env.client)]))
        let unknownResource = try latchkey.run(["exchange", "--resource", "https://elsewhere.example/"])
        #expect(unknownResource.exitCode == 7 && unknownResource.stderrText.contains("https://elsewhere.example/"), "\(unknownResource)")

        // The refresh token as the subject.
        let bySubject = try latchkey.run(["exchange", "--subject", "refresh", "--format", "json"])
        #expect(bySubject.exitCode == 0, "\(bySubject)")
        #expect(s.exchanges.last?.param("subject_token_type") == "urn:ietf:params:oauth:token-type:refresh_token")

        // A bad subject token from a file: the server's invalid_request, exit 7.
        let bad = s.ws.directory.path + "/subject.jwt"
        try Self.writeFile(bad, "eyJhbGciOiJub25lIn0.eyJzdWIiOiJ4In0.bm9wZQ\n")
        let badSubject = try latchkey.run(["exchange", "--subject-token-file", bad, "--subject-token-type", "access_token"])
        #expect(badSubject.exitCode == 7 && badSubject.stderrText.contains("invalid_request"), "\(badSubject)")
        #expect(!badSubject.stderrText.contains("bm9wZQ"), "the subject token is never printed")
        #expect(s.exchanges.count == 9, "\(s.exchanges.map { $0.status ?? 0 })")
    }

    @Test("the confidential client's exchange, and 8 processes making one exchange")
    func concurrentExchangesMakeOne() throws {
        let secretFile = try Requirement.environmentValue("LATCHKEY_IT_IDPYOIDC_EXCHANGE_SECRET_FILE")
        let s = try Self.signedIn(tls: false, secretFile: secretFile)
        let processes = try (0..<8).map { _ in
            try s.ws.latchkey.start([
                "exchange", "--audience", "billing-api", "--resource", "https://billing.example/api", "--client-secret-file", secretFile
            ])
        }
        let results = processes.map { $0.waitForExit(timeout: .seconds(60)) }
        for result in results { #expect(result.exitCode == 0, "\(result)") }
        #expect(Set(results.map(\.stdoutText)).count == 1, "every process prints the one token")
        let exchanges = s.exchanges
        #expect(exchanges.count == 1, "statuses \(exchanges.map { $0.status ?? 0 })")
        // Client authentication is the profile's: client_secret_post (idpyoidc 5.0.0's exchange
        // helper reads client_id from the form, so Basic is 400 invalid_request 'client_id').
        #expect(exchanges.first?.status == 200)
        #expect(exchanges.first?.param("client_id") == "latchkey-exchange" && exchanges.first?.param("client_secret") != nil)
        let token = try #require(results.first?.stdoutText.split(separator: "\n").first.map(String.init))
        let aud = try Self.claims(token)["aud"]?.arrayValue?.compactMap(\.stringValue) ?? []
        #expect(Set(aud) == ["billing-api", "https://billing.example/api"], "\(aud)")

        // --no-cache always asks; fetch --exchange-audience uses the cached one.
        let uncached = try s.ws.latchkey.run([
            "exchange", "--audience", "billing-api", "--resource", "https://billing.example/api", "--no-cache",
            "--client-secret-file", secretFile
        ])
        #expect(uncached.exitCode == 0 && s.exchanges.count == 2, "\(uncached)")
    }

    @Test("token files follow the key-file rule, before anything is sent")
    func tokenFilesAreCheckedFirst() throws {
        let s = try Self.signedIn(tls: false)
        let dir = s.ws.directory.path
        let open = dir + "/open.jwt", twoLines = dir + "/two.jwt", opaque = dir + "/opaque"
        try Self.writeFile(open, "eyJhbGciOiJub25lIn0.eyJzdWIiOiJ4In0.\n", mode: 0o644)
        try Self.writeFile(twoLines, "eyJhbGciOiJub25lIn0.eyJzdWIiOiJ4In0.\nsecond\n")
        try Self.writeFile(opaque, "not-a-jwt\n")
        let world = try s.ws.latchkey.run(["exchange", "--subject-token-file", open, "--subject-token-type", "jwt"])
        #expect(world.exitCode == 9 && world.stderrText.contains(open), "\(world)")
        let lines = try s.ws.latchkey.run(["exchange", "--subject-token-file", twoLines, "--subject-token-type", "jwt"])
        #expect(lines.exitCode == 2 && lines.stderrText.contains(twoLines), "\(lines)")
        let notJWT = try s.ws.latchkey.run(["exchange", "--actor-token-file", opaque, "--actor-token-type", "jwt"])
        #expect(notJWT.exitCode == 2 && notJWT.stderrText.contains(opaque), "\(notJWT)")
        #expect(!notJWT.stderrText.contains("not-a-jwt"))
        #expect(s.exchanges.isEmpty)
    }

    /// `seconds` as the CLI prints `expires_at` (RFC 3339, UTC, whole seconds).
    static func rfc3339(_ seconds: Double) -> String {
        var t = time_t(seconds)
        var parts = tm()
        gmtime_r(&t, &parts)
        func two(_ n: Int32) -> String { n < 10 ? "0\(n)" : "\(n)" }
        return
            "\(parts.tm_year + 1900)-\(two(parts.tm_mon + 1))-\(two(parts.tm_mday))T\(two(parts.tm_hour)):\(two(parts.tm_min)):\(two(parts.tm_sec))Z"
    }
}
