import LatchkeyHTTP
import LatchkeyJOSE

/// An issuer's JWKS fetched over HTTPS and cached. The cache lives for the response's
/// `Cache-Control: max-age`, bounded to `minCacheAge…maxCacheAge` (`defaultCacheAge` without one).
/// A token whose `kid` is unknown causes one refetch, at most once per `refetchInterval`, so a stream
/// of forged `kid`s cannot turn us into a traffic amplifier, yet a key rotation is picked up at once.
package actor RemoteKeySet: KeySet {
    /// The JWKS URL.
    package nonisolated let url: HTTPURL
    let exchange: EndpointExchange
    let time: any TimeSource

    /// Shortest cache lifetime honoured (also the lifetime for `no-store`/`no-cache`).
    package static let minCacheAge: Double = 60
    /// Longest cache lifetime honoured.
    package static let maxCacheAge: Double = 86_400
    /// Cache lifetime when the response does not say.
    package static let defaultCacheAge: Double = 3600
    /// Attempts per JWKS fetch (network failures and 5xx are retried after 1 s, then 2 s).
    /// Minimum time between two refetches caused by unknown `kid`s.
    package static let refetchInterval: Double = 60

    private var cached: JWKSet?
    private var expiresAt = Timestamp.distantPast
    private var lastRefetch: Timestamp?
    private let fetches = SingleFlight<JWKSet>()
    /// How many times the JWKS was fetched (observability and tests).
    package private(set) var fetchCount = 0

    /// Makes a key set for `url` (https, or http to loopback).
    package init(url: HTTPURL, transport: any HTTPTransport, time: any TimeSource) {
        self.url = url
        self.exchange = EndpointExchange(transport: transport)
        self.time = time
    }

    /// Verifies with the cached keys, refetching once (rate-limited) when the `kid` is unknown.
    package func verify(_ jws: JWS, allowed: Set<JWSAlgorithm>) async throws(LatchkeyError) -> JWK {
        let keys = try await currentKeys()
        do {
            return try JWSVerifier.verify(jws, keys: keys, allowedAlgorithms: allowed)
        } catch .noMatchingKey(let kid) {
            // A new kid may mean the issuer rotated keys: refetch once, unless an unknown kid already
            // caused a refetch very recently (the ordinary first or expiry fetch does not count).
            if let lastRefetch, time.now().timeIntervalSince(lastRefetch) < Self.refetchInterval {
                throw .verification(.jose(.noMatchingKey(kid: kid)))
            }
            lastRefetch = time.now()
            let fresh = try await fetch()
            do { return try JWSVerifier.verify(jws, keys: fresh, allowedAlgorithms: allowed) } catch { throw .verification(.jose(error)) }
        } catch {
            throw .verification(.jose(error))
        }
    }

    /// The cached keys, fetched when absent or stale.
    package func currentKeys() async throws(LatchkeyError) -> JWKSet {
        if let cached, time.now() < expiresAt { return cached }
        return try await fetch()
    }

    /// Fetches now; concurrent callers share one request (`SingleFlight`). A cancelled caller stops
    /// waiting, and the fetch is cancelled when no caller is left waiting for it.
    func fetch() async throws(LatchkeyError) -> JWKSet {
        do { return try await fetches.run { try await self.download() } } catch { throw Self.mapped(error) }
    }

    /// The shared work of `fetch`: one GET (with retries), and the cache updated with what arrived,
    /// whichever caller is still waiting.
    private func download() async throws(LatchkeyError) -> JWKSet {
        fetchCount += 1
        let startedAt = time.now()
        // A JWKS GET is idempotent: ride out a dropped connection or a 5xx with two quick retries,
        // since failing here would throw away tokens the user just approved.
        let response = try await TransientFailure.retrying(.jwks, time: time) { () throws(LatchkeyError) in
            try await exchange.getJSON(url, maxRedirects: 3)
        }
        guard response.status == 200 else {
            throw .protocolViolation("JWKS \(url.absoluteString) answered HTTP \(response.status)")
        }
        let set: JWKSet
        do { set = try JWKSet(data: response.body) } catch {
            throw .protocolViolation("JWKS \(url.absoluteString) is invalid: \(error)")
        }
        cached = set
        expiresAt = startedAt.addingTimeInterval(Self.cacheAge(response.header("Cache-Control")))
        return set
    }

    /// The cache lifetime a `Cache-Control` header asks for, within bounds.
    package static func cacheAge(_ cacheControl: String?) -> Double {
        guard let cacheControl else { return defaultCacheAge }
        var age: Double?
        for directive in cacheControl.lowercased().split(separator: ",") {
            let d = directive.filter { $0 != " " && $0 != "\t" }
            if d == "no-store" || d == "no-cache" { return minCacheAge }
            if d.hasPrefix("max-age="), let v = Double(d.dropFirst(8)) { age = v }
        }
        guard let age else { return defaultCacheAge }
        return min(max(age, minCacheAge), maxCacheAge)
    }

    private static func mapped(_ error: any Error) -> LatchkeyError {
        if let e = error as? LatchkeyError { return e }
        if error is CancellationError { return .cancelled }
        return .protocolViolation("JWKS fetch failed: \(error)")
    }
}
