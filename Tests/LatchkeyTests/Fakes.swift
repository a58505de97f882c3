import FoundationEssentials
import Synchronization
import LatchkeyHTTP
import LatchkeyCrypto
@testable import Latchkey

/// A scripted HTTP server in memory: `handler` answers each request; every request is recorded with
/// the virtual time at which it was sent.
final class FakeTransport: HTTPTransport, @unchecked Sendable {
    struct Sent: @unchecked Sendable {
        var request: HTTPRequest
        var at: Timestamp
        var form: [String: String] {
            var d: [String: String] = [:]
            for (k, v) in FormURLEncoding.decode(String(decoding: request.body, as: UTF8.self)) { d[k] = v }
            return d
        }
        func header(_ name: String) -> String? {
            request.headers.first { $0.name.lowercased() == name.lowercased() }?.value
        }
        var path: String { request.url.path }
    }
    typealias Handler = @Sendable (HTTPRequest, Int) async throws -> HTTPResponse

    private let state = Mutex<[Sent]>([])
    let clock: VirtualClock?
    let handler: Handler

    init(clock: VirtualClock? = nil, handler: @escaping Handler) {
        self.clock = clock
        self.handler = handler
    }

    var sent: [Sent] { state.withLock { $0 } }
    func sent(to path: String) -> [Sent] { sent.filter { $0.path == path } }

    func send(_ request: HTTPRequest) async throws -> HTTPResponse {
        let index = state.withLock { s -> Int in
            s.append(Sent(request: request, at: clock?.now() ?? Timestamp.now()))
            return s.count - 1
        }
        return try await handler(request, index)
    }
}

/// Builds responses tersely.
enum Reply {
    static let base = HTTPURL(string: "https://idp.example")!
    static func json(_ status: Int, _ text: String, headers: [(name: String, value: String)] = []) -> HTTPResponse {
        HTTPResponse(status: status, headers: [("Content-Type", "application/json")] + headers, body: Array(text.utf8), url: base)
    }
    static func form(_ status: Int, _ text: String) -> HTTPResponse {
        HTTPResponse(status: status, headers: [("Content-Type", "application/x-www-form-urlencoded")], body: Array(text.utf8), url: base)
    }
    static func empty(_ status: Int) -> HTTPResponse { HTTPResponse(status: status, url: base) }
}

/// Virtual time: `sleep` advances the clock instantly and records the duration.
final class VirtualClock: TimeSource, @unchecked Sendable {
    private let state: Mutex<(now: Timestamp, sleeps: [Double])>
    init(start: Timestamp = Timestamp(timeIntervalSince1970: 1_800_000_000)) { state = Mutex((start, [])) }
    func now() -> Timestamp { state.withLock { $0.now } }
    func sleep(seconds: Double) async throws {
        try Task.checkCancellation()
        state.withLock { s in
            s.sleeps.append(seconds)
            s.now = s.now.addingTimeInterval(max(seconds, 0))
        }
        await Task.yield()
        try Task.checkCancellation()
    }
    func advance(_ seconds: Double) { state.withLock { $0.now = $0.now.addingTimeInterval(seconds) } }
    var sleeps: [Double] { state.withLock { $0.sleeps } }
}

/// Deterministic bytes (a counter), so tests can predict nothing secret but stay reproducible.
struct CountingRandom: RandomSource {
    let seed: UInt8
    init(seed: UInt8 = 7) { self.seed = seed }
    func bytes(_ count: Int) -> [UInt8] { (0..<count).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ Int(seed)) } }
}

/// An in-memory TokenStore with a real (task-level) exclusive lock and counters.
final class MemoryTokenStore: TokenStore, @unchecked Sendable {
    private let state = Mutex<(session: StoredSession?, saves: [StoredSession], deletes: Int, locked: Bool, waiters: [CheckedContinuation<Void, Never>])>((nil, [], 0, false, []))

    let profile: String

    init(_ session: StoredSession? = nil, profile: String = "default") {
        self.profile = profile
        state.withLock { $0.session = session }
    }

    var session: StoredSession? { state.withLock { $0.session } }
    var saves: [StoredSession] { state.withLock { $0.saves } }
    var deletes: Int { state.withLock { $0.deletes } }

    func load() throws -> StoredSession? { state.withLock { $0.session } }
    func save(_ session: StoredSession) throws { state.withLock { $0.session = session; $0.saves.append(session) } }
    func delete() throws { state.withLock { $0.session = nil; $0.deletes += 1 } }

    private let lockCount = Mutex(0)
    /// How many times `withLock` was entered.
    var locks: Int { lockCount.withLock { $0 } }

    func withLock<T: Sendable>(_ body: @Sendable () async throws -> T) async throws -> T {
        lockCount.withLock { $0 += 1 }
        await acquire()
        defer { release() }
        return try await body()
    }

    private func acquire() async {
        await withCheckedContinuation { (c: CheckedContinuation<Void, Never>) in
            let resumeNow = state.withLock { s -> Bool in
                if !s.locked { s.locked = true; return true }
                s.waiters.append(c)
                return false
            }
            if resumeNow { c.resume() }
        }
    }

    private func release() {
        let next = state.withLock { s -> CheckedContinuation<Void, Never>? in
            if s.waiters.isEmpty { s.locked = false; return nil }
            return s.waiters.removeFirst()
        }
        next?.resume()
    }
}

/// A store whose every operation fails, as a corrupt or unreadable file would.
struct FailingTokenStore: TokenStore {
    struct Broken: Error {}
    var profile: String { "default" }
    func load() throws -> StoredSession? { throw Broken() }
    func save(_ session: StoredSession) throws { throw Broken() }
    func delete() throws { throw Broken() }
    func withLock<T: Sendable>(_ body: @Sendable () async throws -> T) async throws -> T { try await body() }
}
