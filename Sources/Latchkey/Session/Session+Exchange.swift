import LatchkeyHTTP

extension Session {
    /// A token for the next hop (RFC 8693): `request`'s subject exchanged at the token endpoint
    /// with the session's client authentication and, for a DPoP-bound session, a proof.
    ///
    /// The session's access token is refreshed first when it expires within `margin`. With
    /// `cache` (the default) an access token (`access_token` or `jwt`) issued for the session's own
    /// access token is kept in the token file, keyed by audiences, resources, scope and requested
    /// type, at most `ExchangeCache.limit` of them (the least recently used goes), and reused
    /// while it has more than `margin` left. A missing entry is fetched single-flight: once per
    /// key among this process's tasks, and under the store's lock across processes, which then
    /// find the entry saved. Exchanges of a refresh or ID token or of a given token are never
    /// cached. A new sign-in and a logout drop the cache with the session.
    ///
    /// Throws `.notSignedIn`; `.oauth(…, endpoint: .token)` for the server's refusal
    /// (`invalid_target`, `invalid_scope`, `invalid_request`, …); `.protocolViolation` for an
    /// answer that is not one (RFC 8693 §2.2.1); `.configuration(.missingSubjectToken)` when the
    /// session holds no such subject token.
    ///
    /// `replacing` is an exchanged token a resource refused (`invalid_token`): a cached entry
    /// holding it is not reused but replaced, under the lock, so the next call (in this process
    /// or another) gets the new token instead of the refused one.
    public func exchange(
        _ request: TokenExchange, margin: RefreshMargin = .standard, cache: Bool = true, replacing rejected: String? = nil
    ) async throws(LatchkeyError) -> ExchangedToken {
        let minTTL = Self.seconds(margin)
        let cached = cache && request.isCacheable
        if cached, rejected == nil {
            // The read without the lock: a hit that is already the latest use changes nothing.
            guard let stored = try loadSession() else { throw .notSignedIn }
            let key = request.cacheKey
            if stored.exchanges.isMostRecent(key), let hit = stored.exchanges.fresh(key, at: time.now(), minTTL: minTTL) {
                current = stored
                return hit
            }
        }
        let (subject, subjectType, session) = try await subjectToken(for: request, margin: margin)
        let exchanger = TokenExchanger(configuration: configuration, store: store, binding: try sessionBinding(), keys: keys, time: time)
        guard cached else {
            let (token, _) = try await exchanger.exchange(request, subjectToken: subject, subjectType: subjectType, session: session)
            return token
        }
        let key = request.cacheKey
        let flight = exchanges[key] ?? SingleFlight<ExchangedToken>()
        exchanges[key] = flight
        do {
            return try await flight.run {
                try await exchanger.cachedUnderLock(request, minTTL: minTTL, fallback: subject, rejected: rejected)
            }
        } catch {
            throw Self.mapped(error)
        }
    }

    /// The subject token, its type URN and the session it goes with.
    private func subjectToken(for request: TokenExchange, margin: RefreshMargin) async throws(LatchkeyError) -> (
        String, String, StoredSession
    ) {
        switch request.subject {
        case .accessToken:
            let session = try await validSession(margin: margin)
            return (session.token.accessToken, TokenExchange.accessTokenType, session)
        case .refreshToken:
            guard let session = try loadSession() else { throw .notSignedIn }
            guard let token = session.token.refreshToken else { throw .configuration(.missingSubjectToken(kind: "refresh_token")) }
            return (token, TokenExchange.tokenType("refresh_token"), session)
        case .idToken:
            guard let session = try loadSession() else { throw .notSignedIn }
            guard let token = session.token.idToken else { throw .configuration(.missingSubjectToken(kind: "id_token")) }
            return (token, TokenExchange.tokenType("id_token"), session)
        case .given(let token, let type):
            guard let session = try loadSession() else { throw .notSignedIn }
            return (token, TokenExchange.tokenType(type), session)
        }
    }

    /// The seconds an exchanged token must have left: the margin's own, or the standard 60 s.
    static func seconds(_ margin: RefreshMargin) -> Double {
        switch margin {
        case .seconds(let s), .profileDefault(let s): return s
        case .standard: return RefreshMargin.standardSeconds
        }
    }
}
