/// The last `DPoP-Nonce` of each origin (RFC 9449 §8–9), for the most recently heard origins only:
/// a session that calls many resource servers keeps at most `limit` of them, so the token file
/// stays small and a hostile list of origins cannot grow it. Ordered oldest first.
package struct RecentNonces: Sendable, Equatable, ExpressibleByDictionaryLiteral {
    /// How many origins are remembered.
    package static let limit = 16

    /// (origin, nonce), the least recently heard first.
    package private(set) var entries: [(origin: String, nonce: String)] = []

    /// Nothing remembered.
    package init() {}

    /// `entries` in order, oldest first; beyond `limit` the oldest are dropped.
    package init(_ entries: [(String, String)]) {
        for (origin, nonce) in entries { remember(nonce, for: origin) }
    }

    /// A literal (tests, fixtures); its order is taken as oldest first.
    package init(dictionaryLiteral elements: (String, String)...) { self.init(elements) }

    /// The nonce last heard from `origin`.
    package subscript(origin: String) -> String? { entries.last { $0.origin == origin }?.nonce }

    /// The origins, oldest first.
    package var origins: [String] { entries.map(\.origin) }
    /// How many are remembered.
    package var count: Int { entries.count }
    /// True when none is.
    package var isEmpty: Bool { entries.isEmpty }
    /// origin → nonce.
    package var dictionary: [String: String] {
        var d: [String: String] = [:]
        for entry in entries { d[entry.origin] = entry.nonce }
        return d
    }

    /// Makes `nonce` the one for `origin`, now the most recent; the oldest origin goes beyond `limit`.
    /// A nonce outside `DPoPNonce`'s grammar or size is not kept (false), so neither a server nor a
    /// tampered file can grow what is stored: at most `limit` × `DPoPNonce.maximumLength` bytes.
    @discardableResult
    package mutating func remember(_ nonce: String, for origin: String) -> Bool {
        guard DPoPNonce.isValid(nonce), origin.utf8.count <= Self.originLimit else { return false }
        entries.removeAll { $0.origin == origin }
        entries.append((origin, nonce))
        if entries.count > Self.limit { entries.removeFirst(entries.count - Self.limit) }
        return true
    }

    /// The longest origin key kept (a holder's prefix, scheme, host and port).
    package static let originLimit = 300

    /// Puts `older` (what a file held) before what is remembered here: an origin heard here keeps
    /// its nonce, and the oldest go first beyond `limit`.
    package mutating func merge(older: RecentNonces) {
        let kept = older.entries.filter { old in !entries.contains { $0.origin == old.origin } }
        entries = kept + entries
        if entries.count > Self.limit { entries.removeFirst(entries.count - Self.limit) }
    }

    /// Same origins, nonces and order.
    package static func == (a: RecentNonces, b: RecentNonces) -> Bool {
        a.entries.count == b.entries.count && zip(a.entries, b.entries).allSatisfy { $0.origin == $1.origin && $0.nonce == $1.nonce }
    }
}
