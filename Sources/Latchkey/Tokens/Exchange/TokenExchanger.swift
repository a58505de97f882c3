import LatchkeyCrypto
import LatchkeyHTTP

/// One token exchange for a stored session, and the cached one run under the store's lock: re-read,
/// reuse an entry another process saved meanwhile, else exchange and save the answer beside the
/// session before returning. Holds only Sendable values, as `Refresher` does, so it can run inside
/// `TokenStore.withLock` without calling back into the `Session`.
struct TokenExchanger: Sendable {
    let configuration: ClientConfiguration
    let store: any TokenStore
    /// The session's binding before the stored session is read; the stored DPoP key joins it.
    let binding: SessionBinding
    let keys: DPoPKeyCache
    let time: any TimeSource

    /// Exchanges `subjectToken` (of `subjectType`) as `request` asks, for `session`.
    func exchange(_ request: TokenExchange, subjectToken: String, subjectType: String, session: StoredSession) async throws(LatchkeyError)
        -> (ExchangedToken, SessionBinding)
    {
        let bound = try binding.bound(to: session.dpop, keys: keys)
        let client = TokenClient(configuration: configuration, metadata: session.metadata, binding: bound)
        let form = request.parameters(subjectToken: subjectToken, subjectType: subjectType)
        return (try await client.exchange(form, audiences: request.audiences), bound)
    }

    /// The cached exchange of the session's access token, under the lock: an entry fresh for
    /// `minTTL` is used (and marked as the latest use), else the exchange runs with the stored
    /// access token (or `fallback`, the one this process holds, when the stored one has expired)
    /// and its answer is saved with the session. An entry holding `rejected` (a token the resource
    /// refused) is stale whatever its expiry; one another process saved meanwhile is used.
    func cachedUnderLock(_ request: TokenExchange, minTTL: Double, fallback: String, rejected: String? = nil) async throws
        -> ExchangedToken
    {
        let key = request.cacheKey
        return try await store.withLock {
            let loaded: StoredSession?
            do throws(TokenStoreError) { loaded = try store.load() } catch { throw LatchkeyError.storage(error) }
            guard var session = loaded else { throw LatchkeyError.notSignedIn }
            let now = time.now()
            if let hit = session.exchanges.fresh(key, at: now, minTTL: minTTL), !Self.same(hit.token, rejected) {
                if !session.exchanges.isMostRecent(key) {
                    session.exchanges.touch(key)
                    // Best effort: the order only decides which entry goes first.
                    try? store.save(session)
                }
                return hit
            }
            let subject = session.token.isValid(at: now, minTTL: 0) ? session.token.accessToken : fallback
            let (token, bound) = try await exchange(
                request, subjectToken: subject, subjectType: TokenExchange.accessTokenType, session: session)
            session.exchanges.insert(token, for: key, at: time.now())
            session.dpop?.nonces = bound.nonces.recent
            do throws(TokenStoreError) { try store.save(session) } catch { throw LatchkeyError.storage(error) }
            return token
        }
    }

    /// Whether `token` is the refused one (compared in constant time: both are bearer secrets).
    static func same(_ token: String, _ rejected: String?) -> Bool {
        guard let rejected else { return false }
        return ConstantTime.equals(Array(token.utf8), Array(rejected.utf8))
    }
}
