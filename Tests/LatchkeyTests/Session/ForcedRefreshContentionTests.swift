import LatchkeyCrypto
import LatchkeyHTTP
import LatchkeyTesting
import Synchronization
import Testing

@testable import Latchkey

/// A forced refresh (`token --force-refresh`, `refresh`) that, once it holds the lock, finds the
/// token replaced since it began waiting (another process refreshed meanwhile) uses that token
/// instead of refreshing once more; with the token it saw before waiting still stored, it refreshes.
@Suite struct ForcedRefreshContentionTests {
    static let now = Timestamp(timeIntervalSince1970: 1_800_000_000)

    static func stored(_ access: String, _ refresh: String) -> StoredSession {
        StoredSession(
            profile: "default", issuer: TestIssuer.issuer, clientID: TestIssuer.clientID,
            token: Token(
                accessToken: access, refreshToken: refresh,
                expiresAt: Timestamp(timeIntervalSince1970: now.timeIntervalSince1970 + 3600)),
            metadata: testMetadata(), createdAt: now, updatedAt: now)
    }

    /// A store where another process refreshes while this one waits for the lock: the first time
    /// the lock is taken, the stored session has already been replaced.
    final class ReplacedWhileWaiting: TokenStore {
        let inner: MemoryTokenStore
        let replacement: StoredSession
        let replaced = Mutex(false)
        init(_ inner: MemoryTokenStore, replacement: StoredSession) {
            self.inner = inner
            self.replacement = replacement
        }
        var profile: String { inner.profile }
        func load() throws(TokenStoreError) -> StoredSession? { try inner.load() }
        func save(_ session: StoredSession) throws(TokenStoreError) { try inner.save(session) }
        func delete() throws(TokenStoreError) { try inner.delete() }
        func withLock<T: Sendable>(_ body: @Sendable () async throws -> T) async throws -> T {
            try await inner.withLock {
                let first = replaced.withLock { done in
                    defer { done = true }; return !done
                }
                if first { try inner.save(replacement) }
                return try await body()
            }
        }
    }

    func transport(_ clock: VirtualClock) -> ScriptedTransport {
        ScriptedTransport(clock: clock) { _, i in
            Reply.json(200, #"{"access_token":"at-mine-\#(i)","token_type":"Bearer","expires_in":3600,"refresh_token":"rt-mine-\#(i)"}"#)
        }
    }

    func session(_ store: any TokenStore, _ t: ScriptedTransport, _ clock: VirtualClock) -> Session {
        Session(configuration: testConfiguration(), store: store, transport: t, time: clock, random: CountingRandom())
    }

    @Test func aTokenReplacedWhileWaitingIsUsedInsteadOfRefreshingAgain() async throws {
        let clock = VirtualClock(start: Self.now)
        for forced in [false, true] {
            let t = transport(clock)
            let store = ReplacedWhileWaiting(
                MemoryTokenStore(Self.stored("at-old", "rt-old")),
                replacement: Self.stored("at-other", "rt-other"))
            let s = session(store, t, clock)
            if forced {
                let token = try await s.validToken(minTTL: 60, forceRefresh: true)
                #expect(token.accessToken == "at-other")
            } else {
                let saved = try await s.refresh()
                #expect(saved.token.accessToken == "at-other")
            }
            #expect(t.sent.isEmpty, "refreshed again: \(t.sent.map { $0.form["grant_type"] ?? "?" })")
            #expect(store.inner.session?.token.refreshToken == "rt-other")
        }
    }

    @Test func theTokenSeenBeforeWaitingStillStoredIsRefreshed() async throws {
        let clock = VirtualClock(start: Self.now)
        let t = transport(clock)
        let store = MemoryTokenStore(Self.stored("at-old", "rt-old"))
        let token = try await session(store, t, clock).validToken(minTTL: 60, forceRefresh: true)
        #expect(token.accessToken == "at-mine-0" && t.sent.count == 1)
        #expect(t.sent.first?.form["refresh_token"] == "rt-old")
    }

    /// A replacement that is itself about to expire is no answer to a forced refresh: refresh it.
    @Test func aReplacementThatExpiresWithinTheMarginIsRefreshed() async throws {
        let clock = VirtualClock(start: Self.now)
        let t = transport(clock)
        var short = Self.stored("at-other", "rt-other")
        short.token.expiresAt = Timestamp(timeIntervalSince1970: Self.now.timeIntervalSince1970 + 10)
        let store = ReplacedWhileWaiting(MemoryTokenStore(Self.stored("at-old", "rt-old")), replacement: short)
        let token = try await session(store, t, clock).validToken(minTTL: 60, forceRefresh: true)
        #expect(token.accessToken == "at-mine-0")
        #expect(t.sent.first?.form["refresh_token"] == "rt-other")
    }
}
