import FoundationEssentials
import LatchkeyHTTP
import LatchkeyJOSE
import LatchkeyTesting
import Synchronization
import Testing

@testable import Latchkey

/// Cancellation of a caller reaches the work it shares with others (Session's single-flight
/// refresh, RemoteKeySet's JWKS fetch) when no other caller still wants the result, and a cancelled
/// caller stops waiting at once. Before, the shared work ran in a task no cancellation reached: a
/// SIGINT during a stalled refresh ended only by the CLI's 5 s watchdog.
@Suite struct SharedWorkCancellationTests {
    let clock = VirtualClock()
    /// How long the stalling server sits on a request before it answers (real seconds).
    static let stall: Double = 3
    /// How soon a cancelled caller must be back (real seconds).
    static let prompt: Double = 1

    /// A server that sits on every request for `stall` seconds, noting whether its wait was cancelled,
    /// and then answers with a refreshed token or the issuer's JWKS.
    final class StallingServer: @unchecked Sendable {
        let cancelledRequests = Mutex(0)
        let idp: TestIssuer
        let stall: Double
        var transport: ScriptedTransport!

        init(stall: Double = SharedWorkCancellationTests.stall) throws {
            idp = try TestIssuer()
            self.stall = stall
            transport = ScriptedTransport { [unowned self] r, _ in
                do { try await Task.sleep(nanoseconds: UInt64(self.stall * 1e9)) } catch {
                    self.cancelledRequests.withLock { $0 += 1 }
                    throw error
                }
                if r.url.path == "/jwks" { return Reply.json(200, TestIssuer.jwks([self.idp])) }
                return Reply.json(200, #"{"access_token":"at-2","token_type":"Bearer","expires_in":3600,"refresh_token":"rt-2"}"#)
            }
        }

        var cancelled: Int { cancelledRequests.withLock { $0 } }

        /// Waits (real time, up to 1 s) until a request's wait was cancelled.
        func waitForCancelledRequest() async throws {
            for _ in 0..<200 where cancelled == 0 { try await Task.sleep(nanoseconds: 5_000_000) }
        }

        /// Waits (real time, up to 2 s) until `count` requests have arrived.
        func waitForRequests(_ count: Int = 1) async throws {
            for _ in 0..<400 where transport.sent.count < count { try await Task.sleep(nanoseconds: 5_000_000) }
            try #require(transport.sent.count >= count, "the request never arrived")
        }
    }

    func stored() -> StoredSession {
        let now = clock.now()
        return StoredSession(
            profile: "default", issuer: TestIssuer.issuer, clientID: TestIssuer.clientID,
            token: Token(accessToken: "at-1", refreshToken: "rt-1", expiresAt: now.addingTimeInterval(3600)),
            subject: "user-1", idTokenClaimsJSON: nil, metadata: testMetadata(), createdAt: now, updatedAt: now)
    }

    func session(_ store: MemoryTokenStore, _ server: StallingServer) -> Session {
        Session(configuration: testConfiguration(), store: store, transport: server.transport, time: clock, random: CountingRandom())
    }

    /// True for `LatchkeyError.cancelled`, what a cancelled caller must get.
    func isCancelled(_ error: any Error) -> Bool {
        if case .cancelled? = error as? LatchkeyError { return true }
        return false
    }

    /// Cancels `task` and expects it back within `limit` seconds with `LatchkeyError.cancelled`.
    func expectPromptCancellation<T>(
        _ task: Task<T, any Error>, within limit: Double = SharedWorkCancellationTests.prompt,
        sourceLocation: SourceLocation = #_sourceLocation
    ) async {
        let start = ContinuousClock.now
        task.cancel()
        let result = await task.result
        let d = ContinuousClock.now - start
        let seconds = Double(d.components.seconds) + Double(d.components.attoseconds) / 1e18
        #expect(seconds < limit, "the cancelled caller came back \(seconds) s after cancel", sourceLocation: sourceLocation)
        guard case .failure(let error) = result else {
            Issue.record("the cancelled caller got \(result)", sourceLocation: sourceLocation); return
        }
        #expect(isCancelled(error), "\(error)", sourceLocation: sourceLocation)
    }

    @Test func cancellingTheOnlyWaiterCancelsTheStalledRefresh() async throws {
        let server = try StallingServer()
        let store = MemoryTokenStore(stored())
        let s = session(store, server)
        let waiter = Task { try await s.refresh() }
        try await server.waitForRequests()
        await expectPromptCancellation(waiter)
        // The cancellation reached the request itself: nothing was saved, the old session stands.
        try await server.waitForCancelledRequest()
        #expect(server.cancelled == 1)
        #expect(store.saves.isEmpty)
        #expect(store.session?.token.refreshToken == "rt-1")
    }

    @Test func aCancelledWaiterLeavesTheRefreshToTheOthers() async throws {
        let server = try StallingServer(stall: 0.5)
        let store = MemoryTokenStore(stored())
        let s = session(store, server)
        let impatient = Task { try await s.validToken(forceRefresh: true) }
        try await server.waitForRequests()
        let patient = Task { try await s.validToken(forceRefresh: true) }
        try await Task.sleep(nanoseconds: 50_000_000)  // the second caller has joined the refresh in flight
        await expectPromptCancellation(impatient, within: 0.4)  // sooner than the refresh's answer
        // The other caller still gets the one refresh's token, and the request was never cancelled.
        #expect(try await patient.value.accessToken == "at-2")
        #expect(server.transport.sent.count == 1)
        #expect(server.cancelled == 0)
        #expect(store.session?.token.refreshToken == "rt-2")
    }

    @Test func cancellingTheOnlyVerifierCancelsTheStalledJWKSFetch() async throws {
        let server = try StallingServer()
        let keys = RemoteKeySet(url: HTTPURL(string: "https://idp.example/jwks")!, transport: server.transport, time: clock)
        let jws = try JWS(compact: try server.idp.sign(TestIssuer.claims(now: clock.now())))
        let waiter = Task { try await keys.verify(jws, allowed: [.es256]) }
        try await server.waitForRequests()
        await expectPromptCancellation(waiter)
        try await server.waitForCancelledRequest()
        #expect(server.cancelled == 1)
        // A cancellation is not a failure to retry.
        #expect(server.transport.sent.count == 1)
    }

    @Test func aCancelledVerifierLeavesTheJWKSFetchToTheOthers() async throws {
        let server = try StallingServer(stall: 0.5)
        let keys = RemoteKeySet(url: HTTPURL(string: "https://idp.example/jwks")!, transport: server.transport, time: clock)
        let jws = try JWS(compact: try server.idp.sign(TestIssuer.claims(now: clock.now())))
        let impatient = Task { try await keys.verify(jws, allowed: [.es256]) }
        try await server.waitForRequests()
        let patient = Task { try await keys.verify(jws, allowed: [.es256]) }
        try await Task.sleep(nanoseconds: 50_000_000)
        await expectPromptCancellation(impatient, within: 0.4)
        _ = try await patient.value
        #expect(server.cancelled == 0)
        #expect(await keys.fetchCount == 1)
        // The fetch that the patient caller saw through is cached for everyone.
        _ = try await keys.verify(jws, allowed: [.es256])
        #expect(server.transport.sent.count == 1)
    }
}
