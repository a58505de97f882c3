import LatchkeyCrypto
import LatchkeyHTTP
import LatchkeyJOSE
import LatchkeyTesting
import Synchronization
import Testing

@testable import Latchkey

/// The server nonces a DPoP session remembers (RFC 9449 §8–9): the last `DPoP-Nonce` of each
/// origin, the 16 most recently heard origins only, kept with the session in the token file so the
/// next process sends them first; and a nonce that cannot be saved never costs the tokens.
@Suite struct NonceMemoryTests {
    static let now = Timestamp(timeIntervalSince1970: 1_800_000_000)

    static func origin(_ i: Int) -> String { "https://rs\(i).example" }

    @Test func theMemoryKeepsTheSixteenMostRecentOriginsInOrder() {
        var memory = RecentNonces()
        for i in 0..<20 { memory.remember("n\(i)", for: Self.origin(i)) }
        #expect(memory.count == RecentNonces.limit && RecentNonces.limit == 16)
        #expect(memory[Self.origin(3)] == nil && memory[Self.origin(4)] == "n4" && memory[Self.origin(19)] == "n19")
        // Hearing from an origin again makes it the most recent; its nonce is replaced, not added.
        memory.remember("again", for: Self.origin(4))
        #expect(memory.count == 16 && memory.origins.last == Self.origin(4) && memory[Self.origin(4)] == "again")
        memory.remember("new", for: Self.origin(20))
        #expect(memory[Self.origin(5)] == nil && memory[Self.origin(4)] == "again")
        // What the file held comes before what this process heard, and never replaces it.
        var heard = RecentNonces()
        heard.remember("fresh", for: Self.origin(1))
        heard.merge(older: memory)
        #expect(heard[Self.origin(1)] == "fresh" && heard.origins.last == Self.origin(1) && heard.count == 16)
        #expect(heard[Self.origin(6)] == nil && heard[Self.origin(7)] == "n7")
    }

    @Test func serverNoncesAreBoundedToo() throws {
        let nonces = ServerNonces()
        for i in 0..<40 { nonces.remember("n\(i)", for: try HTTPURL.parse(Self.origin(i) + "/x")) }
        #expect(nonces.all.count == 16 && nonces.all[Self.origin(39)] == "n39" && nonces.all[Self.origin(23)] == nil)
        #expect(nonces.recent.origins.first == Self.origin(24))
    }

    @Test func theFileKeepsTheOrderAndCutsAnOverfullList() throws {
        var memory = RecentNonces()
        for i in [5, 1, 9] { memory.remember("n\(i)", for: Self.origin(i)) }
        let session = try Self.boundSession(nonces: memory)
        let decoded = try StoredSessionPayload.decode(StoredSessionPayload.encode(session))
        #expect(decoded.dpop?.nonces.origins == [Self.origin(5), Self.origin(1), Self.origin(9)])
        #expect(decoded == session)
        // More than the limit in a file (edited by hand, say) is cut to the last 16 read.
        var object = try JSONParser().parseObject(StoredSessionPayload.encode(session))
        var dpop = try #require(object["dpop"]?.objectValue)
        var big = JSONObject()
        for i in 0..<30 { big[Self.origin(i)] = .string("n\(i)") }
        dpop["nonces"] = .object(big)
        object["dpop"] = .object(dpop)
        let trimmed = try StoredSessionPayload.decode(Array(JSONValue.object(object).jsonText.utf8))
        #expect(trimmed.dpop?.nonces.count == 16 && trimmed.dpop?.nonces[Self.origin(29)] == "n29")
        #expect(trimmed.dpop?.nonces[Self.origin(13)] == nil)
    }

    static func boundSession(nonces: RecentNonces = RecentNonces()) throws -> StoredSession {
        let key = try DPoPKey(random: CountingRandom())
        return StoredSession(
            profile: "default", issuer: "https://idp.example", clientID: "c",
            token: Token(
                accessToken: "at-1", tokenType: "DPoP", refreshToken: "rt-1",
                expiresAt: Timestamp(timeIntervalSince1970: Self.now.timeIntervalSince1970 + 3600)),
            metadata: ProviderMetadata(issuer: "https://idp.example"), createdAt: Self.now, updatedAt: Self.now,
            dpop: DPoPBinding(key: key, nonces: nonces))
    }

    func session(_ store: any TokenStore) -> Session {
        Session(
            configuration: testConfiguration(), store: store,
            transport: ScriptedTransport(clock: VirtualClock()) { _, _ in Reply.empty(500) },
            time: VirtualClock(), random: SequenceRandom())
    }

    @Test func aResourceNonceIsSavedWithTheSessionAndTheNextProcessSendsItFirst() async throws {
        let store = MemoryTokenStore(try Self.boundSession())
        let url = try HTTPURL.parse("https://api.example/v1/items")
        await session(store).rememberNonce("rs-nonce-1", for: url)
        #expect(store.session?.dpop?.nonces["resource https://api.example"] == "rs-nonce-1")
        #expect(store.session?.token == (try Self.boundSession()).token, "the tokens are untouched")
        // Another process (a new Session over the same store): its first proof carries the nonce.
        let proof = try await session(store).dpopProof(method: "GET", url: url, accessToken: "at-1")
        #expect(try DPoPProofTests.verified(proof).claims["nonce"] == .string("rs-nonce-1"))
        // The same nonce again writes nothing.
        let saves = store.saves.count
        await session(store).rememberNonce("rs-nonce-1", for: url)
        #expect(store.saves.count == saves)
    }

    @Test func aNonceIsSavedOverTheLatestTokensAndNeverRecreatesADeletedSession() async throws {
        let store = MemoryTokenStore(try Self.boundSession())
        let s = session(store)
        _ = try await s.dpopProof(method: "GET", url: try HTTPURL.parse("https://api.example/x"), accessToken: "at-1")
        // Another process refreshes meanwhile: the nonce goes into its session, its tokens stay.
        var refreshed = try Self.boundSession()
        refreshed.token.accessToken = "at-2"
        refreshed.token.refreshToken = "rt-2"
        try store.save(refreshed)
        await s.rememberNonce("n", for: try HTTPURL.parse("https://api.example/x"))
        #expect(store.session?.token.accessToken == "at-2" && store.session?.token.refreshToken == "rt-2")
        #expect(store.session?.dpop?.nonces["resource https://api.example"] == "n")
        try store.delete()
        await s.rememberNonce("m", for: try HTTPURL.parse("https://api.example/x"))
        #expect(store.session == nil, "a nonce recreated a logged-out session")
    }

    /// Loads like the memory store; every save fails (a full disk).
    final class UnsavableStore: TokenStore {
        let inner: MemoryTokenStore
        init(_ inner: MemoryTokenStore) { self.inner = inner }
        var profile: String { inner.profile }
        func load() throws(TokenStoreError) -> StoredSession? { try inner.load() }
        func save(_ session: StoredSession) throws(TokenStoreError) { throw FailingTokenStore.defaultError }
        func delete() throws(TokenStoreError) { try inner.delete() }
        func withLock<T: Sendable>(_ body: @Sendable () async throws -> T) async throws -> T { try await inner.withLock(body) }
    }

    @Test func aNonceThatCannotBeSavedCostsNothing() async throws {
        let inner = MemoryTokenStore(try Self.boundSession())
        let s = session(UnsavableStore(inner))
        let url = try HTTPURL.parse("https://api.example/x")
        await s.rememberNonce("n", for: url)
        #expect(inner.session == (try Self.boundSession()), "the stored session changed")
        // This process still uses it.
        let proof = try await s.dpopProof(method: "GET", url: url, accessToken: "at-1")
        #expect(try DPoPProofTests.verified(proof).claims["nonce"] == .string("n"))
    }
}
