import LatchkeyHTTP
import Synchronization

/// The nonces servers have handed out (RFC 9449 §8–9 `DPoP-Nonce`), one per origin, shared by every
/// request of a client so the next proof carries the latest one. A session may persist them.
public final class ServerNonces: Sendable {
    private let values: Mutex<[String: String]>

    /// Starts with `initial` (origin → nonce), e.g. what a session file remembered.
    public init(_ initial: [String: String] = [:]) { values = Mutex(initial) }

    /// The nonce for `url`'s origin.
    public func nonce(for url: HTTPURL) -> String? { values.withLock { $0[url.origin] } }

    /// Remembers `nonce` for `url`'s origin, replacing an older one.
    public func remember(_ nonce: String, for url: HTTPURL) { values.withLock { $0[url.origin] = nonce } }

    /// Adds `remembered` (origin → nonce, e.g. from a session file) where no newer nonce is held.
    public func merge(_ remembered: [String: String]) {
        values.withLock { for (origin, nonce) in remembered where $0[origin] == nil { $0[origin] = nonce } }
    }

    /// Everything remembered, origin → nonce.
    public var all: [String: String] { values.withLock { $0 } }
}
