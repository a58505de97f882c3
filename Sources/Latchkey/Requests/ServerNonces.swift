import LatchkeyHTTP
import Synchronization

/// The nonces servers have handed out (RFC 9449 §8–9 `DPoP-Nonce`), one per origin for the
/// `RecentNonces.limit` most recently heard origins, shared by every request of a client so the
/// next proof carries the latest one. A session keeps them in its token file.
public final class ServerNonces: Sendable {
    private let values: Mutex<RecentNonces>

    /// Starts with `initial` (origin → nonce), e.g. what a session file remembered.
    public init(_ initial: [String: String] = [:]) {
        values = Mutex(RecentNonces(initial.sorted { $0.key < $1.key }.map { ($0.key, $0.value) }))
    }

    /// Starts with `initial`, in its order.
    public init(recent initial: RecentNonces) { values = Mutex(initial) }

    /// The nonce for `url`'s origin.
    public func nonce(for url: HTTPURL) -> String? { values.withLock { $0[url.origin] } }

    /// Remembers `nonce` for `url`'s origin, replacing an older one.
    public func remember(_ nonce: String, for url: HTTPURL) { values.withLock { $0.remember(nonce, for: url.origin) } }

    /// Adds `remembered` (origin → nonce, e.g. from a session file) where no newer nonce is held.
    public func merge(_ remembered: [String: String]) {
        merge(RecentNonces(remembered.sorted { $0.key < $1.key }.map { ($0.key, $0.value) }))
    }

    /// Adds `remembered` (e.g. from a session file) as older than anything heard here.
    public func merge(_ remembered: RecentNonces) { values.withLock { $0.merge(older: remembered) } }

    /// Everything remembered, origin → nonce.
    public var all: [String: String] { values.withLock { $0.dictionary } }

    /// Everything remembered, oldest first.
    public var recent: RecentNonces { values.withLock { $0 } }
}
