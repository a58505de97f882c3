import Latchkey
import LatchkeyHTTP
import LatchkeyTesting
import Synchronization
import Testing

/// The shipped test doubles do what their documentation promises: a double that lies makes
/// every test built on it worthless.
@Suite("LatchkeyTesting doubles")
struct TestDoubleTests {
    static let tokenURL = HTTPURL(string: "https://idp.example/token")!

    static func session(_ n: Int) -> StoredSession {
        StoredSession(
            profile: "default", issuer: "https://idp.example", clientID: "c",
            token: Token(accessToken: "at-\(n)", expiresAt: Timestamp(timeIntervalSince1970: 1_900_000_000)),
            metadata: ProviderMetadata(issuer: "https://idp.example"),
            createdAt: Timestamp(timeIntervalSince1970: 1_800_000_000), updatedAt: Timestamp(timeIntervalSince1970: 1_800_000_000))
    }

    @Test func scriptAnswersInOrderThenSaysItRanOut() async throws {
        let clock = VirtualClock()
        let transport = ScriptedTransport(
            clock: clock,
            script: [
                .reply(Reply.json(200, #"{"a":1}"#)),
                .fail(HTTPError.dnsFailure(host: "idp.example")),
                .handle { request in Reply.json(201, request.method) }
            ])
        #expect(transport.unusedSteps == 3)
        let post = HTTPRequest(
            method: "POST", url: Self.tokenURL, headers: [("Authorization", "Basic eA==")],
            body: Array("grant_type=refresh_token&refresh_token=rt%2B1".utf8))
        let first = try await transport.send(post)
        #expect(first.status == 200 && first.body == Array(#"{"a":1}"#.utf8))
        clock.advance(5)
        await #expect(throws: HTTPError.dnsFailure(host: "idp.example")) { _ = try await transport.send(post) }
        #expect(try await transport.send(HTTPRequest(url: Self.tokenURL)).body == Array("GET".utf8))
        #expect(transport.unusedSteps == 0)
        let error = await #expect(throws: ScriptedTransport.ScriptExhausted.self) { _ = try await transport.send(post) }
        #expect(error?.method == "POST" && error?.url == "https://idp.example/token" && error?.steps == 3)
        #expect(error?.description.contains("request 4 (POST https://idp.example/token)") == true)

        let sent = transport.sent
        #expect(sent.count == 4)  // the unanswered request is recorded too
        #expect(sent[0].form == ["grant_type": "refresh_token", "refresh_token": "rt+1"])
        #expect(sent[0].header("authorization") == "Basic eA==")
        #expect(sent[0].header("Accept") == nil)
        #expect(sent[0].path == "/token")
        #expect(sent.map(\.at.timeIntervalSince1970) == [1_800_000_000, 1_800_000_005, 1_800_000_005, 1_800_000_005])
        #expect(transport.sent(to: "/token").count == 4 && transport.sent(to: "/other").isEmpty)
    }

    @Test func handlerGetsEveryRequestWithItsIndex() async throws {
        let transport = ScriptedTransport { request, index in
            request.url.path == "/token" ? Reply.form(200, "n=\(index)") : Reply.empty(404)
        }
        for _ in 0..<3 { _ = try await transport.send(HTTPRequest(url: Self.tokenURL)) }
        let other = try await transport.send(HTTPRequest(url: HTTPURL(string: "https://idp.example/x")!))
        #expect(other.status == 404)
        #expect(try await transport.send(HTTPRequest(url: Self.tokenURL)).body == Array("n=4".utf8))
        #expect(transport.sent.count == 5 && transport.unusedSteps == 0)
        #expect(transport.sent(to: "/x").count == 1)
    }

    @Test func virtualClockSleepsOnlyInVirtualTimeAndRecords() async throws {
        let clock = VirtualClock(start: Timestamp(timeIntervalSince1970: 100))
        try await clock.sleep(seconds: 600)
        try await clock.sleep(seconds: -3)  // never moves time backwards
        #expect(clock.now() == Timestamp(timeIntervalSince1970: 700))
        #expect(clock.sleeps == [600, -3])
        clock.advance(-50)
        #expect(clock.now() == Timestamp(timeIntervalSince1970: 650))
        let cancelled = Task {
            withUnsafeCurrentTask { $0?.cancel() }
            try await clock.sleep(seconds: 1)
        }
        await #expect(throws: CancellationError.self) { try await cancelled.value }
        #expect(clock.now() == Timestamp(timeIntervalSince1970: 650))
    }

    @Test func memoryStoreCounts() throws {
        let store = MemoryTokenStore(Self.session(1))
        #expect(try store.load() == Self.session(1))
        try store.save(Self.session(2))
        try store.save(Self.session(3))
        #expect(try store.load() == Self.session(3))
        try store.delete()
        #expect(try store.load() == nil)
        #expect(store.session == nil)
        #expect(store.loads == 3 && store.saves == [Self.session(2), Self.session(3)] && store.deletes == 1 && store.locks == 0)
    }

    /// How many tasks are inside the lock now, the most there ever were, and who entered when.
    final class Occupancy: Sendable {
        let state = Mutex((now: 0, most: 0, order: [Int]()))
    }

    @Test func memoryStoreLockIsExclusiveAcrossTasks() async throws {
        let store = MemoryTokenStore()
        let inside = Occupancy()
        try await withThrowingTaskGroup(of: Void.self) { group in
            for i in 0..<20 {
                group.addTask {
                    try await store.withLock {
                        inside.state.withLock {
                            $0.now += 1; $0.most = max($0.most, $0.now); $0.order.append(i)
                        }
                        for _ in 0..<5 { await Task.yield() }  // give any other holder its chance to run
                        inside.state.withLock { $0.now -= 1 }
                    }
                }
            }
            try await group.waitForAll()
        }
        #expect(inside.state.withLock { $0.most } == 1)
        #expect(inside.state.withLock { $0.order.count } == 20)
        #expect(store.locks == 20)
        // The lock is free again, and a throwing body releases it too.
        await #expect(throws: TokenStoreError.self) { try await store.withLock { throw FailingTokenStore.defaultError } }
        #expect(try await store.withLock { 42 } == 42)
    }

    @Test func failingStoreThrowsItsError() async throws {
        #expect(throws: FailingTokenStore.defaultError) { try FailingTokenStore().load() }
        let store = FailingTokenStore(error: TokenStoreError.passphraseRequired)
        #expect(throws: TokenStoreError.passphraseRequired) { try store.save(Self.session(1)) }
        #expect(throws: TokenStoreError.passphraseRequired) { try store.delete() }
        #expect(try await store.withLock { "ran" } == "ran")
    }

    @Test func countingRandomIsDeterministic() {
        #expect(CountingRandom().bytes(4) == [7, 38, 69, 100])
        #expect(CountingRandom(seed: 1).bytes(3) == [1, 32, 63])
        #expect(CountingRandom(seed: 9).bytes(32) == CountingRandom(seed: 9).bytes(32))
        #expect(CountingRandom(seed: 1).bytes(32) != CountingRandom(seed: 2).bytes(32))
        #expect(CountingRandom().bytes(0).isEmpty)
    }
}
