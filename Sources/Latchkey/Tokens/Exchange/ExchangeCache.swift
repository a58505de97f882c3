import LatchkeyHTTP

/// What a cached exchange was asked for (cli.md): audiences, resources and scope as sorted sets,
/// and the requested type's URN.
package struct ExchangeCacheKey: Sendable, Equatable, Hashable {
    package var audiences: [String]
    package var resources: [String]
    package var scope: String
    package var requestedType: String
}

/// The exchanged access tokens a session keeps (in its token file), least recently used first: at
/// most `limit`, a hit counting as a use. Dropped with the session (logout, a new sign-in).
package struct ExchangeCache: Sendable, Equatable {
    /// At most this many per profile (cli.md).
    package static let limit = 16

    package struct Entry: Sendable, Equatable {
        package var key: ExchangeCacheKey
        package var token: ExchangedToken
    }

    /// Oldest use first.
    package private(set) var entries: [Entry] = []

    package init(entries: [Entry] = []) {
        self.entries = Array(entries.suffix(Self.limit))
    }

    package var isEmpty: Bool { entries.isEmpty }

    /// The entry for `key`, when it is still good for more than `minTTL` seconds at `now`.
    package func fresh(_ key: ExchangeCacheKey, at now: Timestamp, minTTL: Double) -> ExchangedToken? {
        guard let entry = entries.last(where: { $0.key == key }), entry.token.isValid(at: now, minTTL: minTTL) else { return nil }
        return entry.token
    }

    /// True when `key` is the most recent use already (a hit then changes nothing to save).
    package func isMostRecent(_ key: ExchangeCacheKey) -> Bool { entries.last?.key == key }

    /// Marks `key` as just used.
    package mutating func touch(_ key: ExchangeCacheKey) {
        guard let index = entries.firstIndex(where: { $0.key == key }) else { return }
        entries.append(entries.remove(at: index))
    }

    /// Keeps `token` for `key` as the most recent use, replacing what `key` held and dropping the
    /// least recently used entries beyond `limit`; entries expired at `now` go first.
    package mutating func insert(_ token: ExchangedToken, for key: ExchangeCacheKey, at now: Timestamp) {
        entries.removeAll { $0.key == key || !$0.token.isValid(at: now, minTTL: 0) }
        entries.append(Entry(key: key, token: token))
        if entries.count > Self.limit { entries.removeFirst(entries.count - Self.limit) }
    }
}
