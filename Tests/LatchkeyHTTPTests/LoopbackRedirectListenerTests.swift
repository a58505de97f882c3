import FoundationEssentials
import Testing
@testable import LatchkeyHTTP

/// The RFC 8252 loopback listener, driven by real `curl` requests.
@Suite struct LoopbackRedirectListenerTests {
    private func curl(_ url: String, output: String) async throws -> Int32 {
        try await offPool { try SpawnedProcess.run(["curl", "-s", "-o", output, "--max-time", "5", url]) }
    }

    @Test func receivesTheRedirectAndIgnoresStrays() async throws {
        guard TestEnvironment.require(["curl"]) else { return }
        let listener = try LoopbackRedirectListener()
        #expect(listener.port > 0)
        #expect(listener.redirectURI() == "http://127.0.0.1:\(listener.port)/callback")
        let dir = TestEnvironment.makeTemporaryDirectory()
        let waiting = Task { try await listener.waitForRedirect(timeout: 10) }
        #expect(try await curl("http://127.0.0.1:\(listener.port)/favicon.ico", output: dir + "/stray") == 0)
        #expect(TestEnvironment.readFile(dir + "/stray").contains("404"))
        #expect(try await curl("http://127.0.0.1:\(listener.port)/callback?code=SplxlOBeZQQYbYS6WxSbIA&state=xyz%20123&iss=https%3A%2F%2Fidp.example", output: dir + "/page") == 0)
        let params = try await waiting.value
        #expect(params.map(\.0) == ["code", "state", "iss"])
        #expect(params.map(\.1) == ["SplxlOBeZQQYbYS6WxSbIA", "xyz 123", "https://idp.example"])
        let page = TestEnvironment.readFile(dir + "/page")
        #expect(page.contains("You can close this window"))
        #expect(!page.contains("SplxlOBeZQQYbYS6WxSbIA"))
        // Closed after the redirect: a second request is refused.
        #expect(try await curl("http://127.0.0.1:\(listener.port)/callback?code=again", output: dir + "/again") != 0)
    }

    @Test func timesOut() async throws {
        let listener = try LoopbackRedirectListener()
        let start = Deadline.now()
        let e = await httpError { try await listener.waitForRedirect(timeout: 0.5) }
        #expect(e == .timedOut(after: 0.5))
        #expect(Double(Deadline.now() - start) / 1e9 < 2)
    }

    @Test func cancellable() async throws {
        let listener = try LoopbackRedirectListener()
        let task = Task { try await listener.waitForRedirect(timeout: 30) }
        try await Task.sleep(nanoseconds: 200_000_000)
        task.cancel()
        let e = await httpError { try await task.value }
        #expect(e == .cancelled)
    }

    @Test func givenPortAndPortInUse() throws {
        let first = try LoopbackRedirectListener()
        let e: HTTPError?
        do { _ = try LoopbackRedirectListener(port: first.port); e = nil } catch { e = error }
        guard case .connectFailed? = e else { Issue.record("got \(String(describing: e))"); return }
        let port = first.port
        first.close()
        let again = try LoopbackRedirectListener(port: port)
        #expect(again.port == port)
    }
}

@Suite struct LoopbackRedirectListenerIdleConnectionTests {
    /// A speculative browser connection that never sends anything must not delay the real redirect.
    @Test func idleConnectionDoesNotBlockTheRedirect() async throws {
        guard TestEnvironment.require(["curl"]) else { return }
        let listener = try LoopbackRedirectListener()
        let idle = try await offPool { try SpawnedProcess(["python3", "-c",
            "import socket,sys,time; s=socket.create_connection(('127.0.0.1',\(listener.port))); print('ok',flush=True); time.sleep(30)"]) }
        defer { idle.terminate() }
        _ = try await offPool { try idle.readLine(timeout: 10) }
        let waiting = Task { try await listener.waitForRedirect(timeout: 10) }
        let dir = TestEnvironment.makeTemporaryDirectory()
        let start = Deadline.now()
        let rc = try await offPool { try SpawnedProcess.run(["curl", "-s", "-o", dir + "/page", "--max-time", "5",
                                                            "http://127.0.0.1:\(listener.port)/callback?code=c1&state=s1"]) }
        #expect(rc == 0)
        let params = try await waiting.value
        #expect(params.map(\.1) == ["c1", "s1"])
        #expect(Double(Deadline.now() - start) / 1e9 < 3)
    }
}
