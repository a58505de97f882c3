/// What remembering a server's nonce did (`ServerNonces.remember`): whether the next proof to that
/// server carries something the last one did not.
public enum NonceChange: Sendable, Equatable {
    /// Outside RFC 9449's grammar or too long: neither kept nor sent.
    case refused
    /// The nonce already held for that server: a challenge that brings it again is not converging.
    case unchanged
    /// A nonce not held before: worth the one retry `RetryRule` allows.
    case changed

    /// Kept (new or not).
    public var isKept: Bool { self != .refused }
}
