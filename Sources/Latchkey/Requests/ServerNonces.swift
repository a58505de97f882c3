import LatchkeyHTTP
import Synchronization

/// The nonces servers have handed out (RFC 9449 §8–9 `DPoP-Nonce`), one per origin for the
/// `RecentNonces.limit` most recently heard origins, shared by every request of a client so the
/// next proof carries the latest one. A session keeps them in its token file.
public final class ServerNonces: Sendable {
    private let values: Mutex<RecentNonces>
    private let refusedCount = Atomic<Int>(0)
    /// Told about each refused nonce (a session's notes), if any.
    let notes: SessionNotes?

    /// Starts with `initial` (origin → nonce), e.g. what a session file remembered.
    public init(_ initial: [String: String] = [:]) {
        notes = nil
        values = Mutex(RecentNonces(initial.sorted { $0.key < $1.key }.map { ($0.key, $0.value) }))
    }

    /// Starts with `initial`, in its order.
    package init(recent initial: RecentNonces) {
        notes = nil
        values = Mutex(initial)
    }

    /// Starts empty; refusals are posted to `notes`.
    init(notes: SessionNotes) {
        self.notes = notes
        values = Mutex(RecentNonces())
    }

    /// The nonce `holder` at `url`'s origin gave last.
    package func nonce(for url: HTTPURL, from holder: NonceHolder = .authorizationServer) -> String? {
        values.withLock { $0[holder.key(url.origin)] }
    }

    /// Remembers `nonce` for `holder` at `url`'s origin, replacing an older one, and says whether
    /// that changed what is held: the one definition of a new nonce, for the provider's endpoints and
    /// resource servers alike (`RetryRule` retries only on a nonce it had not held). A nonce outside
    /// RFC 9449's grammar or longer than `DPoPNonce.maximumLength` is neither kept nor sent:
    /// `.refused`, counted in `refused`.
    @discardableResult
    package func remember(_ nonce: String, for url: HTTPURL, from holder: NonceHolder = .authorizationServer) -> NonceChange {
        let key = holder.key(url.origin)
        let change: NonceChange = values.withLock { held in
            let previous = held[key]
            guard held.remember(nonce, for: key) else { return .refused }
            return previous == nonce ? .unchanged : .changed
        }
        if change == .refused {
            refusedCount.add(1, ordering: .relaxed)
            notes?.post(.nonceRefused(origin: url.origin, length: nonce.utf8.count))
        }
        return change
    }

    /// How many nonces this process refused (`-v` reports them).
    public var refused: Int { refusedCount.load(ordering: .relaxed) }

    /// Adds `remembered` (origin → nonce, e.g. from a session file) where no newer nonce is held.
    public func merge(_ remembered: [String: String]) {
        merge(RecentNonces(remembered.sorted { $0.key < $1.key }.map { ($0.key, $0.value) }))
    }

    /// Adds `remembered` (e.g. from a session file) as older than anything heard here.
    package func merge(_ remembered: RecentNonces) { values.withLock { $0.merge(older: remembered) } }

    /// Everything remembered, origin → nonce.
    public var all: [String: String] { values.withLock { $0.dictionary } }

    /// Everything remembered, oldest first.
    package var recent: RecentNonces { values.withLock { $0 } }
}
