import Glibc
import LatchkeyHTTP
import LatchkeyJOSE
import LatchkeyTestSupport
import LatchkeyTesting
import Testing

@testable import Latchkey

/// An unsigned-looking compact JWS with `claims` (nothing here verifies it: the server does).
func compactJWT(_ claims: String, header: String = #"{"alg":"ES256","typ":"JWT"}"#) -> String {
    Base64URL.encode(Array(header.utf8)) + "." + Base64URL.encode(Array(claims.utf8)) + ".c2lnbmF0dXJl"
}

/// A folder for credential files, removed at the end.
final class CredentialFolder {
    let directory: TemporaryDirectory
    init() throws { directory = try TemporaryDirectory(prefix: "latchkey-credential-") }
    deinit { directory.remove() }

    /// Writes `text` to NAME with `mode` (exactly: chmod after the umask) and returns the path.
    func write(_ name: String, _ text: String, mode: mode_t = 0o600) -> String {
        let path = directory.path + "/" + name
        _ = FileText.write(text, to: path, mode: mode)
        _ = chmod(path, mode)
        return path
    }
}

/// The token and assertion file rule (cli.md, "exchange"): owner-only, one token on one line, a JWT
/// checked for shape and expiry, read at each use.
@Suite struct CredentialFileTests {
    let now = Timestamp(timeIntervalSince1970: 1_800_000_000)

    func problem(_ body: () throws(LatchkeyError) -> String) -> CredentialFileProblem? {
        do {
            _ = try body()
            return nil
        } catch {
            if case .credentialFile(let p) = error { return p }
            Issue.record("not a credential file problem: \(error)")
            return nil
        }
    }

    @Test func oneTrailingNewlineIsIgnoredAndTheFileIsReadAtEachUse() throws {
        let folder = try CredentialFolder()
        let first = compactJWT(#"{"iss":"a","exp":1800000300}"#)
        let path = folder.write("a.jwt", first + "\n")
        let file = CredentialFile(path: path)
        #expect(try file.jwt(at: now) == first)
        let second = compactJWT(#"{"iss":"b","exp":1800000600}"#)
        _ = folder.write("a.jwt", second + "\r\n")
        #expect(try file.jwt(at: now) == second, "rotated in place: the new content is read")
        _ = folder.write("a.jwt", second)
        #expect(try file.token() == second, "no newline at all")
    }

    @Test func moreThanOneLineOrNoTokenIsNotOneToken() throws {
        let folder = try CredentialFolder()
        let jwt = compactJWT(#"{"iss":"a"}"#)
        for text in [jwt + "\n" + jwt + "\n", jwt + "\n\n", "", "\n", "a b.c.d", jwt + "\t"] {
            let file = CredentialFile(path: folder.write("x", text))
            #expect(problem { () throws(LatchkeyError) in try file.jwt(at: now) } == .notOneToken(path: file.path), "\(text)")
        }
    }

    @Test func notAJWTIsSaidSo() throws {
        let folder = try CredentialFolder()
        for text in ["opaque-token", "a.b", "a.b.c.d", "!!.e30.c2ln", compactJWT("[1]"), compactJWT("{}", header: "not json")] {
            let file = CredentialFile(path: folder.write("x", text + "\n"))
            #expect(problem { () throws(LatchkeyError) in try file.jwt(at: now) } == .notAJWT(path: file.path), "\(text)")
            #expect(problem { () throws(LatchkeyError) in try file.token() } == nil, "any one token is a token")
        }
        // An encrypted JWT (compact JWE, five parts): accepted, its claims not readable.
        let jwe = Base64URL.encode(Array(#"{"alg":"RSA-OAEP","enc":"A128GCM"}"#.utf8)) + ".a.b.c.d"
        #expect(try CredentialFile(path: folder.write("jwe", jwe)).jwt(at: now) == jwe)
    }

    @Test func anExpiredJWTIsRefusedAndOneWithoutExpIsNot() throws {
        let folder = try CredentialFolder()
        let expired = CredentialFile(path: folder.write("e", compactJWT(#"{"exp":1800000000}"#)))
        #expect(problem { () throws(LatchkeyError) in try expired.jwt(at: now) } == .expired(path: expired.path, expiredAt: 1_800_000_000))
        let noExp = compactJWT(#"{"iss":"a"}"#)
        #expect(try CredentialFile(path: folder.write("n", noExp)).jwt(at: now) == noExp)
        #expect(LatchkeyError.credentialFile(.expired(path: "p", expiredAt: 0)).category == .signInRequired)
        #expect(LatchkeyError.credentialFile(.expired(path: "p", expiredAt: 0)).message.contains("p expired at 1970-01-01T00:00:00Z"))
    }

    @Test func theKeyFileRulesApply() throws {
        let folder = try CredentialFolder()
        let jwt = compactJWT(#"{"iss":"a"}"#)
        for mode: mode_t in [0o640, 0o604, 0o620, 0o660] {
            let file = CredentialFile(path: folder.write("m\(mode)", jwt, mode: mode))
            guard case .unreadable(let path, _)? = problem({ () throws(LatchkeyError) in try file.jwt(at: now) }) else {
                Issue.record("mode \(String(mode, radix: 8)) was accepted"); continue
            }
            #expect(path == file.path)
            #expect(LatchkeyError.credentialFile(.unreadable(path: path, .unsafePermissions(path: path, reason: ""))).category == .storage)
        }
        #expect(try CredentialFile(path: folder.write("ro", jwt, mode: 0o400)).jwt(at: now) == jwt, "a projected token's 0400")
        let missing = CredentialFile(path: folder.directory.path + "/none")
        #expect(problem { () throws(LatchkeyError) in try missing.jwt(at: now) } == .missing(path: missing.path))
        let big = CredentialFile(path: folder.write("big", String(repeating: "a", count: CredentialFileReader.limit + 1)))
        guard case .unreadable? = problem({ () throws(LatchkeyError) in try big.token() }) else {
            Issue.record("a file over the limit was read"); return
        }
        #expect(LatchkeyError.credentialFile(.notAJWT(path: "p")).category == .configuration)
    }
}

/// The JWT bearer grant (RFC 7523 §2.1): the request, what is stored, and renewal from the file's
/// current content under the refresh rules.
@Suite struct JWTBearerGrantTests {
    let clock = VirtualClock()

    func configuration(_ method: ClientAuthMethod = .none) -> ClientConfiguration {
        ClientConfiguration(
            issuer: TestIssuer.issuer, clientID: "workload", scopes: ["openid", "offline_access", "read"], authMethod: method)
    }

    func assertion(sub: String = "spiffe://example.org/kiosk", jti: String, expiresIn: Double = 600) -> String {
        let exp = Int64(clock.now().timeIntervalSince1970 + expiresIn)
        return compactJWT(#"{"iss":"workload","sub":"\#(sub)","aud":"\#(TestIssuer.issuer)","exp":\#(exp),"jti":"\#(jti)"}"#)
    }

    func session(_ store: any TokenStore, _ t: ScriptedTransport, file: String?, method: ClientAuthMethod = .none) -> Session {
        Session(
            configuration: configuration(method), store: store, transports: EndpointTransports(t), time: clock,
            random: CountingRandom(), clientSecret: method == .none ? nil : "s", assertion: file.map { CredentialFile(path: $0) })
    }

    func server() -> ScriptedTransport {
        ScriptedTransport(clock: clock) { r, index in
            guard r.url.path == "/token" else { return Reply.empty(404) }
            try await Task.sleep(nanoseconds: 20_000_000)
            return Reply.json(
                200, #"{"access_token":"at-\#(index + 1)","token_type":"Bearer","expires_in":300,"scope":"read","refresh_token":"rt-x"}"#)
        }
    }

    @Test func theGrantCarriesTheFilesAssertionAndNoSecret() async throws {
        let folder = try CredentialFolder()
        let jwt = assertion(jti: "one")
        let path = folder.write("a.jwt", jwt + "\n")
        let store = MemoryTokenStore()
        let t = server()
        let s = try await session(store, t, file: path).signIn(flow: .jwtBearer, metadata: testMetadata())
        let sent = try #require(t.sent.first)
        #expect(t.sent.count == 1)
        #expect(sent.form["grant_type"] == "urn:ietf:params:oauth:grant-type:jwt-bearer")
        #expect(sent.form["assertion"] == jwt, "the file's line, without its newline")
        #expect(sent.form["scope"] == "read", "no person: openid and offline_access are not asked for")
        #expect(sent.header("Authorization") == nil && sent.form["client_assertion"] == nil && sent.form["client_secret"] == nil)
        #expect(sent.form["client_id"] == "workload", "a public client names itself (RFC 7521 §4.1)")
        #expect(s.grant == .jwtBearer && s.subject == "spiffe://example.org/kiosk")
        #expect(s.token.refreshToken == nil && s.token.idToken == nil, "renewal is the grant again")
    }

    @Test func aConfidentialClientAuthenticatesBesideTheGrant() async throws {
        let folder = try CredentialFolder()
        let path = folder.write("a.jwt", assertion(jti: "one"))
        let t = server()
        _ = try await session(MemoryTokenStore(), t, file: path, method: .clientSecretBasic).signIn(
            flow: .jwtBearer, metadata: testMetadata())
        #expect(t.sent.first?.header("Authorization")?.hasPrefix("Basic ") == true)
    }

    @Test func withoutAFileNothingIsSent() async throws {
        let t = server()
        await expectError(category: .configuration) {
            try await session(MemoryTokenStore(), t, file: nil).signIn(flow: .jwtBearer, metadata: testMetadata())
        }
        #expect(t.sent.isEmpty)
        #expect(configuration().problems(for: .jwtBearer, given: SignInMaterials()) == [.missingAssertion])
        #expect(configuration().problems(for: .jwtBearer, given: SignInMaterials(assertion: true)).isEmpty)
    }

    @Test func anExpiredAssertionIsRefusedBeforeAnythingIsSent() async throws {
        let folder = try CredentialFolder()
        let path = folder.write("a.jwt", assertion(jti: "old", expiresIn: -1))
        let t = server()
        await expectError(category: .signInRequired, code: "credential_file_expired") {
            try await session(MemoryTokenStore(), t, file: path).signIn(flow: .jwtBearer, metadata: testMetadata())
        }
        #expect(t.sent.isEmpty)
    }

    @Test func renewalPostsTheRotatedFileOnceForConcurrentCallers() async throws {
        let folder = try CredentialFolder()
        let path = folder.write("a.jwt", assertion(jti: "one"))
        let store = MemoryTokenStore()
        let t = server()
        _ = try await session(store, t, file: path).signIn(flow: .jwtBearer, metadata: testMetadata())
        // The issuer rotates the file; the token expires.
        let rotated = assertion(jti: "two", expiresIn: 900)
        _ = folder.write("a.jwt", rotated + "\n")
        clock.advance(290)
        let s = session(store, t, file: path)
        let other = session(store, t, file: path)
        let tokens = try await withThrowingTaskGroup(of: String.self) { group in
            for i in 0..<16 { group.addTask { try await (i % 2 == 0 ? s : other).validToken(minTTL: 60).accessToken } }
            return try await group.reduce(into: [String]()) { $0.append($1) }
        }
        #expect(Set(tokens) == ["at-2"])
        #expect(t.sent(to: "/token").count == 2)
        #expect(t.sent.last?.form["assertion"] == rotated)
        #expect(store.session?.grant == .jwtBearer && store.session?.token.refreshToken == nil)
    }

    @Test func anExpiredFileAtRenewalSendsNothingAndKeepsTheSession() async throws {
        let folder = try CredentialFolder()
        let path = folder.write("a.jwt", assertion(jti: "one", expiresIn: 100))
        let store = MemoryTokenStore()
        let t = server()
        _ = try await session(store, t, file: path).signIn(flow: .jwtBearer, metadata: testMetadata())
        clock.advance(310)
        await expectError(category: .signInRequired, code: "credential_file_expired") {
            try await session(store, t, file: path).validToken()
        }
        #expect(t.sent.count == 1, "only the sign-in")
        #expect(store.session != nil)
    }

    @Test func aRefusedGrantIsTheServersError() async throws {
        let folder = try CredentialFolder()
        let path = folder.write("a.jwt", assertion(jti: "one"))
        let t = ScriptedTransport(clock: clock) { _, _ in
            Reply.json(400, #"{"error":"invalid_grant","error_description":"Invalid 'sub' value in assertion"}"#)
        }
        do {
            _ = try await session(MemoryTokenStore(), t, file: path).signIn(flow: .jwtBearer, metadata: testMetadata())
            Issue.record("signed in")
        } catch {
            guard case .oauth(let e, .token) = error else { Issue.record("\(error)"); return }
            #expect(e.code == "invalid_grant" && error.message.contains("Invalid 'sub' value in assertion"))
            #expect(error.category == .protocolViolation)
        }
    }
}

/// `private_key_jwt` with a ready-made assertion (RFC 7523 §2.2) read from a file at each request.
@Suite struct ClientAssertionFileTests {
    let clock = VirtualClock()

    @Test func eachRequestCarriesTheFilesCurrentAssertion() async throws {
        let folder = try CredentialFolder()
        let exp = Int64(clock.now().timeIntervalSince1970 + 600)
        let first = compactJWT(#"{"iss":"machine","sub":"machine","exp":\#(exp),"jti":"1"}"#)
        let path = folder.write("c.jwt", first + "\n")
        let config = ClientConfiguration(issuer: TestIssuer.issuer, clientID: "machine", scopes: ["read"], authMethod: .privateKeyJWT)
        let t = ScriptedTransport(clock: clock) { _, index in
            Reply.json(200, #"{"access_token":"at-\#(index + 1)","token_type":"Bearer","expires_in":300}"#)
        }
        let auth = ClientAssertionFileAuthentication(clientID: "machine", file: CredentialFile(path: path))
        let store = MemoryTokenStore()
        func session() -> Session {
            Session(
                configuration: config, store: store, transports: EndpointTransports(t), time: clock, random: CountingRandom(),
                clientAuthentication: auth)
        }
        _ = try await session().signIn(flow: .clientCredentials, metadata: testMetadata())
        let second = compactJWT(#"{"iss":"machine","sub":"machine","exp":\#(exp),"jti":"2"}"#)
        _ = folder.write("c.jwt", second)
        _ = try await session().validToken(minTTL: 0, forceRefresh: true)
        #expect(t.sent.count == 2)
        for (sent, jwt) in zip(t.sent, [first, second]) {
            #expect(sent.form["client_assertion_type"] == "urn:ietf:params:oauth:client-assertion-type:jwt-bearer")
            #expect(sent.form["client_assertion"] == jwt)
            #expect(sent.form["client_id"] == "machine" && sent.form["grant_type"] == "client_credentials")
            #expect(sent.header("Authorization") == nil)
        }
        // Expired: refused before anything is sent.
        _ = folder.write("c.jwt", compactJWT(#"{"iss":"machine","exp":\#(exp - 601)}"#))
        await expectError(category: .signInRequired, code: "credential_file_expired") {
            try await session().validToken(minTTL: 0, forceRefresh: true)
        }
        #expect(t.sent.count == 2)
    }

    @Test func anExpiredClientAssertionFileStopsASignInBeforeDiscovery() async throws {
        let folder = try CredentialFolder()
        let exp = Int64(clock.now().timeIntervalSince1970 - 10)
        let path = folder.write("c.jwt", compactJWT(#"{"iss":"machine","sub":"machine","exp":\#(exp)}"#))
        let config = ClientConfiguration(issuer: TestIssuer.issuer, clientID: "machine", scopes: ["read"], authMethod: .privateKeyJWT)
        let t = ScriptedTransport(clock: clock) { _, _ in Reply.json(500, "{}") }
        let session = Session(
            configuration: config, store: MemoryTokenStore(), transports: EndpointTransports(t), time: clock,
            random: CountingRandom(),
            clientAuthentication: ClientAssertionFileAuthentication(clientID: "machine", file: CredentialFile(path: path)))
        await expectError(category: .signInRequired, code: "credential_file_expired") {
            try await session.signIn(flow: .clientCredentials)
        }
        #expect(t.sent.isEmpty, "not even the discovery request: \(t.sent.count) sent")
    }

    @Test func aRefusalIsTheClientsAuthentication() {
        let auth = ClientAssertionFileAuthentication(clientID: "m", file: CredentialFile(path: "/x"))
        let refused = auth.refusal(of: Reply.json(400, #"{"error":"invalid_client"}"#), endpoint: .token)
        #expect(refused?.method == .privateKeyJWT && refused?.assertionAudience == nil)
        #expect(auth.refusal(of: Reply.json(400, #"{"error":"invalid_grant"}"#), endpoint: .token) == nil)
    }
}
