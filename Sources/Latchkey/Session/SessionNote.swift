import Synchronization

/// Something a session did on its own that changes no result but that a person reading `-v`
/// should be able to see: a server's nonce refused, a nonce not saved.
package enum SessionNote: Sendable, Equatable {
    /// A `DPoP-Nonce` outside RFC 9449's grammar or over `DPoPNonce.maximumLength` bytes; neither
    /// kept nor sent. `length` is its size in bytes.
    case nonceRefused(origin: String, length: Int)
    /// A resource server's nonce could not be written to the token file (the tokens are untouched;
    /// the next process makes one more round trip).
    case nonceNotSaved(origin: String, reason: String)
    /// The refreshed session did not fit the space reserved for it and was saved without the
    /// remembered nonces, so the rotated refresh token was kept.
    case savedWithoutNonces
}

/// Where a session's notes go: nowhere until a program observes them (the CLI, under `-v`).
package final class SessionNotes: Sendable {
    private let handler = Mutex<(@Sendable (SessionNote) -> Void)?>(nil)

    package init() {}

    /// Sends every later note to `handler`, replacing an earlier one.
    package func observe(_ handler: @escaping @Sendable (SessionNote) -> Void) {
        self.handler.withLock { $0 = handler }
    }

    func post(_ note: SessionNote) {
        let current = handler.withLock { $0 }
        current?(note)
    }
}
