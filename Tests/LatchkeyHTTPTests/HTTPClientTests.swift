import FoundationEssentials
import Glibc
import Testing

@testable import LatchkeyHTTP

/// The client against the scripted Python server over plain loopback HTTP (framing, limits, timeouts,
/// redirects, request headers) and the transport rules that need no server.
@Suite struct HTTPClientTests {
    private func server() async throws -> ScriptedServer? {
        guard TestEnvironment.require(["python3"]) else { return nil }
        return try await offPool { try Fixtures.plainServer.get() }
    }

    private func client(limits: HTTPResponseParser.Limits = .init()) -> HTTPClient {
        HTTPClient(configuration: .init(caFile: nil, connectTimeout: 3, limits: limits))
    }

    @Test func contentLengthBodyHeadersAndDate() async throws {
        guard let s = try await server() else { return }
        let r = try await client().send(HTTPRequest(url: s.url("/length"), timeout: 5))
        #expect(r.status == 200)
        #expect(String(decoding: r.body, as: UTF8.self) == #"{"ok":true}"#)
        #expect(r.mediaType == "application/json")
        #expect(r.header("x-dup") == "a, b")
        // The server stamped the response moments ago (generous bound: the machine is shared and busy).
        let skew = try #require(r.serverDate).timeIntervalSince(Timestamp.now())
        #expect(abs(skew) < 30)
    }

    @Test func chunkedBody() async throws {
        guard let s = try await server() else { return }
        let r = try await client().send(HTTPRequest(url: s.url("/chunked"), timeout: 5))
        #expect(String(decoding: r.body, as: UTF8.self) == "hello chunked world")
    }

    @Test func closeDelimitedBody() async throws {
        guard let s = try await server() else { return }
        let r = try await client().send(HTTPRequest(url: s.url("/close"), timeout: 5))
        #expect(String(decoding: r.body, as: UTF8.self) == "body until close")
    }

    @Test func requestHeadersAndPostBody() async throws {
        guard let s = try await server() else { return }
        let body = FormURLEncoding.encode([("grant_type", "device_code"), ("scope", "a b")])
        let r = try await client().send(
            HTTPRequest(
                method: "POST", url: s.url("/echo?x=1"),
                headers: [
                    ("Content-Type", "application/x-www-form-urlencoded"),
                    ("Connection", "keep-alive"), ("Accept", "application/json")
                ],
                body: Array(body.utf8), timeout: 5))
        let text = String(decoding: r.body, as: UTF8.self)
        #expect(text.contains(#""method": "POST""#))
        #expect(text.contains(#""target": "/echo?x=1""#))
        #expect(text.contains(#"["Host", "127.0.0.1:\#(s.port)"]"#))
        #expect(text.contains(#"["User-Agent", "latchkey/0.1"]"#))
        #expect(text.contains(#"["Accept-Encoding", "identity"]"#))
        #expect(text.contains(#"["Connection", "close"]"#))
        #expect(!text.contains("keep-alive"))
        #expect(text.contains(#"["Content-Length", "\#(body.utf8.count)"]"#))
        #expect(text.contains(#""body": "grant_type=device_code&scope=a%20b""#))
    }

    @Test(arguments: [
        ("/oversize-body", "body larger"), ("/oversize-chunked", "body larger"),
        ("/oversize-headers", "header block"), ("/many-headers", "header fields"),
        ("/truncated", "truncated"), ("/garbage", "status line"), ("/cl-te", "both")
    ])
    func hostileResponsesAreProtocolViolations(path: String, expected: String) async throws {
        guard let s = try await server() else { return }
        let start = Deadline.now()
        let e = await httpError { try await client().send(HTTPRequest(url: s.url(path), timeout: 60)) }
        guard case .protocolViolation(let reason)? = e else { Issue.record("\(path): got \(String(describing: e))"); return }
        #expect(reason.contains(expected), "\(path): \(reason)")
        // Far below the 60 s deadline: the violation, not the clock, ended it. The margin absorbs the
        // 5 s stalls two loaded cores showed under ASan in CI.
        #expect(Deadline.now() - start < 20_000_000_000)
    }

    @Test func serverThatNeverAnswersTimesOut() async throws {
        guard let s = try await server() else { return }
        let start = Deadline.now()
        let e = await httpError { try await client().send(HTTPRequest(url: s.url("/hang"), timeout: 1.0)) }
        let elapsed = Double(Deadline.now() - start) / 1e9
        #expect(e == .timedOut(after: 1.0))
        #expect(elapsed >= 0.9 && elapsed < 15)  // margin for two loaded CI cores under ASan; /hang never answers
    }

    @Test func overallDeadlineBoundsASlowDrip() async throws {
        guard let s = try await server() else { return }
        let start = Deadline.now()
        let e = await httpError { try await client().send(HTTPRequest(url: s.url("/slow-drip"), timeout: 1.5)) }
        #expect(e == .timedOut(after: 1.5))
        // The drip would last 100 s without the deadline; the wide margin absorbs two busy CI cores
        // (3.506 s was measured once with the whole suite running beside it).
        let elapsed = Double(Deadline.now() - start) / 1e9
        #expect(elapsed >= 1.4 && elapsed < 20)
    }

    @Test func cancellationAbortsPromptly() async throws {
        guard let s = try await server() else { return }
        let c = client()
        let task = Task { try await c.send(HTTPRequest(url: s.url("/hang"), timeout: 120)) }
        try await Task.sleep(nanoseconds: 300_000_000)
        let start = Deadline.now()
        task.cancel()
        let e = await httpError { try await task.value }
        #expect(e == .cancelled)
        // The request's own timeout is 120 s; anything far below it proves cancellation, not the deadline.
        // (5.18 s was measured once under ASan in CI with the suite's other tests on both cores.)
        #expect(Double(Deadline.now() - start) / 1e9 < 20)
    }

    @Test func redirectsOnlyWhenAllowed() async throws {
        guard let s = try await server() else { return }
        // The redirect rules, not the deadlines, are under test: with a 3 s connect bound this failed
        // ("timed out after 3.0 s") in 3 of about 8 whole-suite runs on 2 busy cores, once under ASan.
        let client = HTTPClient(configuration: .init(caFile: nil, connectTimeout: 20))
        let noFollow = try await client.send(HTTPRequest(url: s.url("/redirect"), timeout: 20))
        #expect(noFollow.status == 302)
        let followed = try await client.send(HTTPRequest(url: s.url("/redirect?n=3"), maxRedirects: 3, timeout: 20))
        #expect(followed.status == 200)
        #expect(followed.url.path == "/length")
        let e = await httpError { try await client.send(HTTPRequest(url: s.url("/redirect?n=4"), maxRedirects: 3, timeout: 20)) }
        #expect(e == .protocolViolation(reason: "more than 3 redirects"))
        let toHTTP = await httpError {
            try await client.send(HTTPRequest(url: s.url("/redirect?to=http://example.com/"), maxRedirects: 3, timeout: 20))
        }
        guard case .invalidURL? = toHTTP else { Issue.record("got \(String(describing: toHTTP))"); return }
    }

    @Test func credentialsDroppedWhenARedirectChangesHost() async throws {
        guard let s = try await server() else { return }
        let auth = [("Authorization", "Bearer SENSITIVE")]
        let same = try await client().send(HTTPRequest(url: s.url("/redirect?to=/echo"), headers: auth, maxRedirects: 1, timeout: 5))
        #expect(String(decoding: same.body, as: UTF8.self).contains("Bearer SENSITIVE"))
        let other = try await client().send(
            HTTPRequest(
                url: s.url("/redirect?to=http://localhost:\(s.port)/echo"), headers: auth,
                maxRedirects: 1, timeout: 5))
        #expect(other.status == 200)
        #expect(!String(decoding: other.body, as: UTF8.self).contains("SENSITIVE"))
    }

    @Test func ipv6Loopback() async throws {
        guard TestEnvironment.require(["python3"]) else { return }
        let s = try await offPool { try ScriptedServer(bind: "::1") }
        let r = try await client().send(HTTPRequest(url: s.url("/length"), timeout: 5))
        #expect(r.status == 200)
    }

    @Test func plainHTTPOnlyForLoopback() async {
        for url in ["http://example.com/", "http://10.0.0.1/", "http://localhost.evil.com/", "ftp://localhost/", "http:///x"] {
            // The rule lives in the URL type: such a request cannot even be built.
            do { _ = try HTTPURL.parse(url); Issue.record("\(url) parsed") } catch {
                guard case .invalidURL = error else { Issue.record("\(url): \(error)"); continue }
            }
        }
        #expect(LoopbackAddress.isLoopbackHost("127.8.9.10"))
        #expect(LoopbackAddress.isLoopbackHost("[::1]"))
        #expect(LoopbackAddress.isLoopbackHost("LOCALHOST"))
        #expect(!LoopbackAddress.isLoopbackHost("128.0.0.1"))
        #expect(!LoopbackAddress.isLoopbackHost("::2"))
    }

    @Test func connectionRefusedAndUnknownHost() async throws {
        // Bound and never listening, held to the end of the test: the connection is refused.
        let closed = try PortReservation(sharedWithServer: false)
        defer { withExtendedLifetime(closed) {} }
        let e = await httpError {
            try await client().send(HTTPRequest(url: HTTPURL(string: "http://127.0.0.1:\(closed.port)/")!, timeout: 2))
        }
        guard case .connectFailed? = e else { Issue.record("got \(String(describing: e))"); return }
        let d = await httpError { try await client().send(HTTPRequest(url: HTTPURL(string: "https://nonexistent.invalid/")!, timeout: 5)) }
        // Either the lookup fails or (CA first) there is no bundle; never a success.
        #expect(d != nil)
    }

    @Test func headerInjectionRefused() async {
        let e = await httpError {
            try await client().send(HTTPRequest(url: HTTPURL(string: "http://127.0.0.1:1/")!, headers: [("X", "a\r\nEvil: 1")], timeout: 1))
        }
        guard case .invalidURL? = e else { Issue.record("got \(String(describing: e))"); return }
    }

    @Test func verboseLogIsRedacted() async throws {
        guard let s = try await server() else { return }
        let lines = LogCollector()
        let c = HTTPClient(configuration: .init(connectTimeout: 3, logger: { lines.append($0) }))
        _ = try await c.send(
            HTTPRequest(
                method: "POST", url: s.url("/token"),
                headers: [("Authorization", "Bearer TOPSECRET"), ("Content-Type", "application/x-www-form-urlencoded")],
                body: Array("refresh_token=RTSECRET&client_id=c".utf8), timeout: 5))
        let log = lines.all.joined(separator: "\n")
        #expect(log.contains("POST"))
        #expect(log.contains("client_id=c"))
        #expect(!log.contains("TOPSECRET"))
        #expect(!log.contains("RTSECRET"))
        #expect(log.contains("token_type"))
        #expect(!log.contains("ATSECRET"))
        #expect(!log.contains("IDSECRET"))
    }
}

final class LogCollector: @unchecked Sendable {
    private var lines: [String] = []
    private var lock = pthread_mutex_t()
    init() { pthread_mutex_init(&lock, nil) }
    func append(_ s: String) { pthread_mutex_lock(&lock); lines.append(s); pthread_mutex_unlock(&lock) }
    var all: [String] { pthread_mutex_lock(&lock); defer { pthread_mutex_unlock(&lock) }; return lines }
}
