import LatchkeyHTTP
import LatchkeyTesting
import Synchronization
import Testing

@testable import Latchkey

@Suite struct AuthorizedTransportTests {
    static let api = HTTPURL(string: "https://api.example/v1/me")!

    /// Hands out tok-1, then tok-2 when tok-1 is rejected; counts every call.
    final class Source: TokenSource {
        let calls = Mutex<[String?]>([])
        func token(replacing rejected: Token?) async throws(LatchkeyError) -> Token {
            calls.withLock { $0.append(rejected?.accessToken) }
            return Token(accessToken: rejected == nil ? "tok-1" : "tok-2", expiresAt: nil)
        }
    }

    static func invalidToken(_ url: HTTPURL = api) -> HTTPResponse {
        HTTPResponse(
            status: 401, headers: [("WWW-Authenticate", #"Bearer realm="api", error="invalid_token", error_description="revoked""#)],
            url: url)
    }

    @Test func addsTheTokenAndSendsOnlyToAllowedOrigins() async throws {
        let base = ScriptedTransport { r, _ in HTTPResponse(status: 200, url: r.url) }
        let source = Source()
        let transport = AuthorizedTransport(base: base, source: source, allowed: [Self.api])
        _ = try await transport.send(HTTPRequest(url: HTTPURL(string: "https://api.example/other?q=1")!))
        #expect(base.sent[0].header("Authorization") == "Bearer tok-1")
        let refused = await #expect(throws: LatchkeyError.self) {
            _ = try await transport.send(HTTPRequest(url: HTTPURL(string: "https://evil.example/v1/me")!))
        }
        guard case .configuration(.tokenOriginNotAllowed("https://evil.example")) = refused else {
            Issue.record("refused with \(String(describing: refused))")
            return
        }
        // Another port is another origin.
        await #expect(throws: LatchkeyError.self) {
            _ = try await transport.send(HTTPRequest(url: HTTPURL(string: "https://api.example:8443/v1/me")!))
        }
        #expect(base.sent.count == 1)
        #expect(source.calls.withLock { $0.count } == 1, "a refused origin must not even read a token")
    }

    @Test func invalidTokenRefreshesOnceAndRetries() async throws {
        let base = ScriptedTransport { r, i in i == 0 ? Self.invalidToken() : HTTPResponse(status: 200, url: r.url) }
        let source = Source()
        let response = try await AuthorizedTransport(base: base, source: source, allowed: [Self.api]).send(HTTPRequest(url: Self.api))
        #expect(response.status == 200)
        #expect(base.sent.map { $0.header("Authorization") } == ["Bearer tok-1", "Bearer tok-2"])
        #expect(source.calls.withLock { $0 } == [nil, "tok-1"])
    }

    @Test func aSecondRefusalIsReturnedNotRetriedAgain() async throws {
        let base = ScriptedTransport { _, _ in Self.invalidToken() }
        let response = try await AuthorizedTransport(base: base, source: Source(), allowed: [Self.api]).send(HTTPRequest(url: Self.api))
        #expect(response.status == 401)
        #expect(base.sent.count == 2)
    }

    @Test func otherRefusalsAreNotRetried() async throws {
        for header in [#"Bearer error="insufficient_scope""#, #"Basic realm="x""#, ""] {
            let base = ScriptedTransport { r, _ in
                HTTPResponse(status: 401, headers: header.isEmpty ? [] : [("WWW-Authenticate", header)], url: r.url)
            }
            let response = try await AuthorizedTransport(base: base, source: Source(), allowed: [Self.api]).send(HTTPRequest(url: Self.api))
            #expect(response.status == 401)
            #expect(base.sent.count == 1, "\(header)")
        }
    }

    @Test func redirectsStayWithinTheOrigin() async throws {
        let base = ScriptedTransport { r, _ in
            switch r.url.path {
            case "/v1/me": return HTTPResponse(status: 302, headers: [("Location", "/v2/me")], url: r.url)
            case "/v2/me": return HTTPResponse(status: 307, headers: [("Location", "https://cdn.example/blob")], url: r.url)
            default: return HTTPResponse(status: 200, url: r.url)
            }
        }
        let response = try await AuthorizedTransport(base: base, source: Source(), allowed: [Self.api])
            .send(HTTPRequest(url: Self.api, maxRedirects: 3))
        // The cross-origin hop is handed back unfollowed: the token never reaches cdn.example.
        #expect(response.status == 307)
        #expect(base.sent.map(\.path) == ["/v1/me", "/v2/me"])
        #expect(base.sent.allSatisfy { $0.request.url.origin == "https://api.example" && $0.request.maxRedirects == 0 })
    }

    @Test func redirectsAreNotFollowedUnlessAllowed() async throws {
        let base = ScriptedTransport { r, _ in HTTPResponse(status: 302, headers: [("Location", "/v2/me")], url: r.url) }
        let response = try await AuthorizedTransport(base: base, source: Source(), allowed: [Self.api]).send(HTTPRequest(url: Self.api))
        #expect(response.status == 302)
        #expect(base.sent.count == 1)
    }
}

/// `Session` as a `TokenSource`: a rejected token is replaced, by a refresh unless someone already did.
@Suite struct SessionTokenSourceTests {
    let fixture = SessionTests()

    @Test func aRejectedTokenIsRefreshed() async throws {
        let store = MemoryTokenStore(fixture.stored(expiresIn: 3600))
        let t = fixture.rotatingServer()
        let source: any TokenSource = fixture.session(store, t)
        #expect(try await source.token().accessToken == "at-1")
        #expect(t.sent.isEmpty)
        let fresh = try await source.token(replacing: Token(accessToken: "at-1", expiresAt: nil))
        #expect(fresh.accessToken == "at-2")
        #expect(t.sent(to: "/token").count == 1)
    }

    @Test func aTokenAlreadyReplacedIsNotRefreshedAgain() async throws {
        let store = MemoryTokenStore(fixture.stored(expiresIn: 3600))
        let t = fixture.rotatingServer()
        let fresh = try await fixture.session(store, t).token(replacing: Token(accessToken: "an-older-one", expiresAt: nil))
        #expect(fresh.accessToken == "at-1")
        #expect(t.sent.isEmpty)
    }

    @Test func cachedTokenIsSynchronousAndNeverRefreshes() throws {
        let store = MemoryTokenStore(fixture.stored(expiresIn: 30))
        let session = fixture.session(store, fixture.rotatingServer())
        #expect(try session.cachedToken(minTTL: 10)?.accessToken == "at-1")
        #expect(try session.cachedToken(minTTL: 60) == nil)
        #expect(throws: LatchkeyError.self) { try fixture.session(MemoryTokenStore(), fixture.rotatingServer()).cachedToken() }
        #expect(store.locks == 0)
    }

    @Test func theProfileIsTheStores() {
        let session = fixture.session(MemoryTokenStore(profile: "kiosk"), fixture.rotatingServer())
        #expect(session.profile == "kiosk")
    }
}
