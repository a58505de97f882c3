import LatchkeyCrypto
import LatchkeyHTTP
import LatchkeyJOSE
import LatchkeyTesting
import Synchronization
import Testing

@testable import Latchkey

/// Issue 37 §1–2: a server's `DPoP-Nonce` is checked on receipt (RFC 9449 `1*NQCHAR`, at most 512
/// bytes), what servers can make a session store is bounded, a token endpoint and an API on one
/// origin keep their own nonces, and the token file is written for a nonce only when it matters.
@Suite struct NonceBoundsTests {
    static let url = try! HTTPURL.parse("https://api.example/v1")

    @Test func theGrammarIsNQCHARAndTheSizeIsCapped() {
        #expect(DPoPNonce.isValid("eyJ7S_zG.2-~!#$%&'()*+,/:;<=>?@[]^`{|}"))
        #expect(DPoPNonce.isValid(String(repeating: "a", count: 512)))
        for bad in ["", String(repeating: "a", count: 513), "a b", "a\"b", "a\\b", "caf\u{E9}", "\u{FFFD}", "a\tb", "a\u{7F}"] {
            #expect(!DPoPNonce.isValid(bad), "\(bad.utf8.count) bytes accepted: \(Array(bad.utf8.prefix(8)))")
        }
    }

    @Test func anInvalidNonceIsNeitherKeptNorSentAndIsCounted() throws {
        let notes = SessionNotes()
        let seen = NoteLog()
        notes.observe { seen.append($0) }
        let nonces = ServerNonces(notes: notes)
        #expect(nonces.remember("good", for: Self.url) == .changed)
        #expect(nonces.remember(String(repeating: "\u{FFFD}", count: 100), for: Self.url) == .refused)
        #expect(nonces.remember(String(repeating: "x", count: 8000), for: Self.url) == .refused)
        #expect(nonces.remember("good", for: Self.url) == .unchanged)
        #expect(nonces.nonce(for: Self.url) == "good", "a refused nonce replaced the good one")
        #expect(nonces.refused == 2)
        #expect(
            seen.notes == [
                .nonceRefused(origin: "https://api.example", length: 300),
                .nonceRefused(origin: "https://api.example", length: 8000)
            ])
    }

    /// Sixteen origins with the largest nonce allowed, each: the file's share stays near 16 × 512.
    @Test func whatServersCanMakeUsStoreIsBounded() throws {
        var memory = RecentNonces()
        for i in 0..<64 { memory.remember(String(repeating: "n", count: 600), for: "https://rs\(i).example") }
        #expect(memory.isEmpty, "a nonce over 512 bytes was kept")
        for i in 0..<64 { memory.remember(String(repeating: "n", count: 512), for: "https://rs\(i).example") }
        #expect(memory.count == 16)
        let session = try NonceMemoryTests.boundSession(nonces: memory)
        let empty = try NonceMemoryTests.boundSession()
        let grown = StoredSessionPayload.encode(session).count - StoredSessionPayload.encode(empty).count
        #expect(grown <= 16 * (512 + 64), "nonces add \(grown) bytes")
        // A file that holds more (edited, or written before the cap) is read back within the cap.
        var object = try JSONParser().parseObject(StoredSessionPayload.encode(empty))
        var dpop = try #require(object["dpop"]?.objectValue)
        var raw = JSONObject()
        raw["https://a.example"] = .string(String(repeating: "z", count: 9000))
        raw["https://b.example"] = .string("ok")
        dpop["nonces"] = .object(raw)
        object["dpop"] = .object(dpop)
        let read = try StoredSessionPayload.decode(Array(JSONValue.object(object).jsonText.utf8))
        #expect(read.dpop?.nonces.dictionary == ["https://b.example": "ok"])
    }

    /// The authorization server's nonce and the API's on the same origin do not overwrite each other.
    @Test func aTokenEndpointAndAnAPIOnOneOriginKeepTheirOwn() throws {
        let nonces = ServerNonces()
        let token = try HTTPURL.parse("https://api.example/oauth/token")
        nonces.remember("as-1", for: token)
        nonces.remember("rs-1", for: Self.url, from: .resourceServer)
        #expect(nonces.nonce(for: token) == "as-1")
        #expect(nonces.nonce(for: Self.url, from: .resourceServer) == "rs-1")
        #expect(nonces.nonce(for: Self.url, from: .authorizationServer) == "as-1")
    }

    func session(_ store: any TokenStore) -> Session {
        Session(
            configuration: testConfiguration(), store: store,
            transport: ScriptedTransport(clock: VirtualClock()) { _, _ in Reply.empty(500) },
            time: VirtualClock(), random: SequenceRandom())
    }

    /// A server that hands a new nonce with every answer: the file is written once per origin in a
    /// process, and again only for a nonce that answered a `use_dpop_nonce` challenge.
    @Test func aRotatingNonceIsSavedOncePerOriginUnlessItAnsweredAChallenge() async throws {
        let store = MemoryTokenStore(try NonceMemoryTests.boundSession())
        let s = session(store)
        for i in 0..<5 { await s.rememberNonce("n\(i)", for: Self.url, challenged: false) }
        #expect(store.saves.count == 1, "\(store.saves.count) saves")
        #expect(store.session?.dpop?.nonces["resource https://api.example"] == "n0")
        await s.rememberNonce("challenged", for: Self.url, challenged: true)
        #expect(store.saves.count == 2)
        #expect(store.session?.dpop?.nonces["resource https://api.example"] == "challenged")
        // This process still sends the newest.
        let proof = try await s.dpopProof(method: "GET", url: Self.url, accessToken: "at-1")
        #expect(try DPoPProofTests.verified(proof).claims["nonce"] == .string("challenged"))
    }

    /// A session without DPoP takes no lock and writes nothing for a nonce a server volunteers.
    @Test func aBearerSessionNeverLocksForANonce() async throws {
        var bearer = try NonceMemoryTests.boundSession()
        bearer.dpop = nil
        bearer.token.tokenType = "Bearer"
        let store = MemoryTokenStore(bearer)
        let s = session(store)
        _ = try await s.validToken()
        let locks = store.locks
        await s.rememberNonce("n", for: Self.url, challenged: true)
        #expect(store.locks == locks && store.saves.isEmpty)
    }

    /// A refreshed session that cannot be saved with its nonces is saved without them: the rotated
    /// refresh token is the only one left, the nonces only spare a round trip.
    @Test func aFailedSaveIsRetriedWithoutTheNonces() async throws {
        let inner = MemoryTokenStore(try NonceMemoryTests.boundSession())
        let s = session(inner)
        let notes = NoteLog()
        s.notes.observe { notes.append($0) }
        let refresher = Refresher(
            configuration: testConfiguration(), store: inner, binding: try await s.sessionBinding(), keys: DPoPKeyCache(),
            verification: await s.verification, time: VirtualClock(), notes: s.notes)
        var heavy = try NonceMemoryTests.boundSession(nonces: ["https://idp.example": "n1"])
        heavy.token.refreshToken = "rt-rotated"
        let saved = try refresher.save(heavy, into: FailingOnceSave(store: inner))
        #expect(inner.session?.token.refreshToken == "rt-rotated")
        #expect(inner.session?.dpop?.nonces.isEmpty == true && saved.dpop?.nonces.isEmpty == true)
        #expect(notes.notes == [.savedWithoutNonces])
        // Without nonces there is nothing to drop: the failure is reported.
        var lean = heavy
        lean.dpop?.nonces = RecentNonces()
        #expect(throws: LatchkeyError.self) { _ = try refresher.save(lean, into: FailingOnceSave(store: inner)) }
    }
}

/// A reserved save that fails (the reservation was too small).
struct FailingOnceSave: ReservedSave {
    let store: MemoryTokenStore
    func save(_ session: StoredSession) throws(TokenStoreError) { throw FailingTokenStore.defaultError }
    func release() {}
}

/// Notes seen by an observer.
final class NoteLog: @unchecked Sendable {
    private let lock = Mutex<[SessionNote]>([])
    func append(_ note: SessionNote) { lock.withLock { $0.append(note) } }
    var notes: [SessionNote] { lock.withLock { $0 } }
}
