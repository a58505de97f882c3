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
        #expect(
            try await curl(
                "http://127.0.0.1:\(listener.port)/callback?code=SplxlOBeZQQYbYS6WxSbIA&state=xyz%20123&iss=https%3A%2F%2Fidp.example",
                output: dir + "/page") == 0)
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
        #expect(Double(Deadline.now() - start) / 1e9 < 15)  // margin for two loaded CI cores under ASan
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
        // A port below the kernel's ephemeral range (32768 and up): a port 0 listener gets one from
        // that range, and an outgoing connection of a test running beside this one once took it
        // between the close and the second listen below ("Address already in use" in CI).
        var candidates = (UInt16(23_000)..<23_200).makeIterator()
        var found: LoopbackRedirectListener?
        while found == nil, let candidate = candidates.next() { found = try? LoopbackRedirectListener(port: candidate) }
        let first = try #require(found, "no free port in 23000..<23200")
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
        let idle = try await offPool {
            try SpawnedProcess([
                "python3", "-c",
                "import socket,sys,time; s=socket.create_connection(('127.0.0.1',\(listener.port))); print('ok',flush=True); time.sleep(30)"
            ])
        }
        defer { idle.terminate() }
        _ = try await offPool { try idle.readLine(timeout: 10) }
        let waiting = Task { try await listener.waitForRedirect(timeout: 10) }
        let dir = TestEnvironment.makeTemporaryDirectory()
        let start = Deadline.now()
        let rc = try await offPool {
            try SpawnedProcess.run([
                "curl", "-s", "-o", dir + "/page", "--max-time", "5",
                "http://127.0.0.1:\(listener.port)/callback?code=c1&state=s1"
            ])
        }
        #expect(rc == 0)
        let params = try await waiting.value
        #expect(params.map(\.1) == ["c1", "s1"])
        #expect(Double(Deadline.now() - start) / 1e9 < 15)  // the idle client sleeps 30 s
    }
}

/// Issue 12: what another local user can do to the listener once they find its port.
@Suite struct LoopbackRedirectListenerHostileTests {
    private func curlStatus(_ url: String) async throws -> String {
        let dir = TestEnvironment.makeTemporaryDirectory()
        _ = try await offPool {
            try SpawnedProcess.run([
                "curl", "-s", "--max-time", "5",
                "-o", dir + "/body", "-D", dir + "/head", url
            ])
        }
        let head = TestEnvironment.readFile(dir + "/head")
        return String(head.split(separator: " ").dropFirst().first ?? "")
    }

    @Test func aRefusedRedirectIsAnsweredAndTheWaitGoesOn() async throws {
        guard TestEnvironment.require(["curl"]) else { return }
        let listener = try LoopbackRedirectListener()
        let base = "http://127.0.0.1:\(listener.port)/callback"
        let waiting = Task {
            try await listener.waitForRedirect(timeout: 10) { params in params.contains { $0.0 == "state" && $0.1 == "good" } }
        }
        #expect(try await curlStatus(base + "?error=access_denied") == "400")
        #expect(try await curlStatus(base + "?error=access_denied&state=bad") == "400")
        #expect(try await curlStatus(base + "?code=c&state=good") == "200")
        let params = try await waiting.value
        #expect(params.map(\.1) == ["c", "good"])
    }

    /// A browser's speculative connection, opened first and used later, survives a flood of idle
    /// connections: the newest idle one is dropped, never the oldest.
    @Test func aFloodOfIdleConnectionsDoesNotPushOutTheFirstOne() async throws {
        let listener = try LoopbackRedirectListener()
        let script = """
            import socket, sys, time
            port = \(listener.port)
            early = socket.create_connection(('127.0.0.1', port))
            time.sleep(0.3)
            flood = [socket.create_connection(('127.0.0.1', port)) for _ in range(40)]
            time.sleep(0.5)
            early.sendall(b'GET /callback?code=c1&state=s1 HTTP/1.1\\r\\nHost: x\\r\\n\\r\\n')
            print(early.recv(100).split(b' ')[1].decode(), flush=True)
            """
        let waiting = Task { try await listener.waitForRedirect(timeout: 10) }
        let client = try await offPool { try SpawnedProcess(["python3", "-c", script]) }
        defer { client.terminate() }
        let status = try await offPool { try client.readLine(timeout: 10) }
        #expect(status == "200")
        let params = try await waiting.value
        #expect(params.map(\.1) == ["c1", "s1"])
    }

    @Test func bindsTheAddressTheRedirectURINames() async throws {
        guard TestEnvironment.require(["curl"]) else { return }
        let listener = try LoopbackRedirectListener(host: "127.0.0.2")
        #expect(listener.redirectURI() == "http://127.0.0.2:\(listener.port)/callback")
        let waiting = Task { try await listener.waitForRedirect(timeout: 10) }
        // Nothing listens on 127.0.0.1 at that port.
        #expect(try await curlStatus("http://127.0.0.1:\(listener.port)/callback?code=x") == "")
        #expect(try await curlStatus("http://127.0.0.2:\(listener.port)/callback?code=y") == "200")
        #expect(try await waiting.value.map(\.1) == ["y"])
        #expect(throws: HTTPError.self) { try LoopbackRedirectListener(host: "10.0.0.1") }
        #expect(throws: HTTPError.self) { try LoopbackRedirectListener(host: "127.0.0.1.nip.io") }
    }
}
