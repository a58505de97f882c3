import LatchkeyCrypto
import LatchkeyHTTP
import LatchkeyJOSE

/// The refresh itself, run under the store's lock: re-read, refresh only if still needed, verify any
/// new ID token (OIDC Core §12.2), save, and only then return. Holds only Sendable values so it can run
/// inside `TokenStore.withLock`.
struct Refresher: Sendable {
    let configuration: ClientConfiguration
    let store: any TokenStore
    let pipeline: ProviderPipeline
    let time: any TimeSource
    let keySetProvider: @Sendable (ProviderMetadata) async throws(LatchkeyError) -> any KeySet
    var skewObserver: @Sendable (Double?) async -> Void = { _ in }

    /// With `force`, a token other than the one stored when the call began (read before waiting
    /// for the lock) is taken as the refresh asked for, when it is fresh for `margin`: another
    /// process refreshed while this one waited, and refreshing again would only cost a round trip.
    func refreshUnderLock(margin: RefreshMargin, force: Bool) async throws -> Token {
        let before = force ? (try? store.load()).flatMap { $0 }?.token.accessToken : nil
        return try await store.withLock {
            let session: StoredSession?
            do { session = try store.load() } catch { throw LatchkeyError.storage(error) }
            guard let session else { throw LatchkeyError.notSignedIn }
            // Another task or process may have refreshed while we waited for the lock.
            if !force, session.isFresh(at: time.now(), margin: margin) { return session.token }
            if force, let before, Self.replaced(before, by: session.token), session.isFresh(at: time.now(), margin: margin) {
                return session.token
            }
            do {
                let token = try await refresh(session).token
                store.recordRefresh(RefreshAttempt(at: time.now()))
                return token
            } catch let error as LatchkeyError {
                store.recordRefresh(RefreshAttempt(at: time.now(), failure: error.message))
                if !force && Refresher.isTransient(error) && session.token.isValid(at: time.now(), minTTL: 0) {
                    // Refreshing early failed for a passing reason (network, 5xx, no room to save
                    // yet) but the token has not expired: hand it out rather than fail a caller
                    // that could still use it.
                    return session.token
                }
                throw error
            }
        }
    }

    /// True when `token` is not the access token `before` (compared in constant time).
    static func replaced(_ before: String, by token: Token) -> Bool {
        !ConstantTime.equals(Array(before.utf8), Array(token.accessToken.utf8))
    }

    /// Failures worth riding out with a still-valid token: the network, or the server's own trouble.
    static func isTransient(_ error: LatchkeyError) -> Bool {
        switch error {
        case .network(let e): return DeviceAuthorizationFlow.isRetryable(e)
        case .oauth(.unexpectedStatus(let status), _): return status >= 500 || status == 429
        // Nothing was sent, so the session is as good as before.
        case .storage(let e as TokenStoreError): if case .reservationFailed = e { return true } else { return false }
        default: return false
        }
    }

    func refresh(_ session: StoredSession) async throws(LatchkeyError) -> StoredSession {
        if session.grant == .clientCredentials { return try await renewClientCredentials(session) }
        guard let refreshToken = session.token.refreshToken else {
            throw .reauthenticationRequired(reason: "no refresh token is stored")
        }
        // Before the request: once the provider has rotated the refresh token, a save that fails for
        // lack of space would lose the session.
        let reserved = try reserve()
        defer { reserved.release() }
        var client = TokenClient(configuration: configuration, metadata: session.metadata, pipeline: pipeline)
        if let dpop = session.dpop {
            // A bound session refreshes with a proof from its key, and its tokens must stay bound.
            pipeline.nonces.merge(dpop.nonces)
            client.pipeline.authenticators.append(DPoPAuthenticator(key: try dpop.key(random: pipeline.random)))
            client.requiresBinding = true
        }
        let response: TokenResponse
        do {
            response = try await client.refresh(refreshToken: refreshToken)
        } catch .reauthenticationRequired(let reason) {
            // The refresh token is dead: clear local tokens so status says "not signed in".
            do { try store.delete() } catch { throw .storage(error) }
            throw .reauthenticationRequired(reason: reason)
        }
        let now = time.now()
        let skew = ClockSkew.measure(serverDate: response.serverDate, localNow: now)
        await skewObserver(skew)
        var updated = session
        updated.token = response.token(at: now, previous: session.token)
        updated.token.idToken = session.token.idToken
        updated.updatedAt = now
        updated.dpop?.nonces = pipeline.nonces.recent

        var verificationError: LatchkeyError?
        if let idToken = response.idToken {
            do {
                try ClockSkew.check(skew)
                let verifier = try IDTokenVerifier.forClient(configuration, metadata: session.metadata,
                                                             keySet: try await keySetProvider(session.metadata),
                                                             time: ClockSkew.timeSource(time, skew: skew, leeway: configuration.leeway))
                let verified = try await verifier.verify(idToken, nonce: nil, accessToken: response.accessToken)
                if let previousJSON = session.idTokenClaimsJSON,
                   let previous = try? JWTClaims(payload: Array(previousJSON.utf8)) {
                    try IDTokenVerifier.checkRefresh(verified, previous: previous)
                }
                updated.token.idToken = verified.compact
                updated.subject = verified.subject
                updated.idTokenClaimsJSON = verified.claimsJSON
            } catch {
                verificationError = error
                // Refused (OIDC Core §12.2, signature, claims): the whole response is untrusted, so
                // its access token is never served. Only the rotated refresh token is kept, since the
                // old one is spent; the previous access token stays while it is valid, and once it
                // expires the next refresh must succeed or the person signs in again.
                let rotated = updated.token.refreshToken
                updated.token = session.token
                updated.token.refreshToken = rotated
            }
        }
        // Save before returning or throwing: a rotated refresh token must never be lost, even when the
        // new ID token is refused (the last verified one is kept then).
        do { try reserved.save(updated) } catch { throw .storage(error) }
        if let verificationError { throw verificationError }
        return updated
    }

    /// A client-credentials session has no refresh token: the grant runs again (RFC 6749 §4.4),
    /// under the same lock, so concurrent callers still make one request. A refused client keeps
    /// its stored session (nothing a person can sign in again to fix); what the server sent is
    /// reported as it is.
    func renewClientCredentials(_ session: StoredSession) async throws(LatchkeyError) -> StoredSession {
        let reserved = try reserve()
        defer { reserved.release() }
        var client = TokenClient(configuration: configuration, metadata: session.metadata, pipeline: pipeline)
        if let dpop = session.dpop {
            pipeline.nonces.merge(dpop.nonces)
            client.pipeline.authenticators.append(DPoPAuthenticator(key: try dpop.key(random: pipeline.random)))
            client.requiresBinding = true
        }
        let response = try await client.clientCredentials()
        let now = time.now()
        await skewObserver(ClockSkew.measure(serverDate: response.serverDate, localNow: now))
        var updated = session
        updated.token = ClientCredentialsToken.token(from: response, at: now)
        updated.updatedAt = now
        updated.dpop?.nonces = pipeline.nonces.recent
        do { try reserved.save(updated) } catch { throw .storage(error) }
        return updated
    }

    private func reserve() throws(LatchkeyError) -> any ReservedSave {
        do { return try store.reserveSave() } catch { throw .storage(error) }
    }
}
