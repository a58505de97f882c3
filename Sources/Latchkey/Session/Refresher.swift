import LatchkeyCrypto
import LatchkeyHTTP
import LatchkeyJOSE

/// The refresh itself, run under the store's lock: re-read, refresh only if still needed, verify any
/// new ID token (OIDC Core §12.2), save, and only then return. Holds only Sendable values so it can run
/// inside `TokenStore.withLock`, and never calls back into the `Session`: what the session learns
/// (the saved session, the server's clock) comes back in the `Outcome`.
struct Refresher: Sendable {
    let configuration: ClientConfiguration
    let store: any TokenStore
    /// The session's binding before the stored session is read; the stored DPoP key joins it.
    let binding: SessionBinding
    let keys: DPoPKeyCache
    let verification: IDTokenVerification
    let time: any TimeSource
    /// Where a save without the nonces is noted.
    var notes: SessionNotes? = nil
    /// The JWT bearer grant's assertion file, read again at each renewal.
    var assertion: CredentialFile? = nil

    /// The session as saved (or as found fresh), and the clock skew the answer measured.
    struct Outcome: Sendable {
        var session: StoredSession
        var skew: Double? = nil
        /// The binding the refresh sent with (the stored session's key joined), for the session to hold.
        var binding: SessionBinding? = nil
    }

    /// With `force`, a token other than the one stored when the call began (read before waiting
    /// for the lock) is taken as the refresh asked for, when it is fresh for `margin`: another
    /// process refreshed while this one waited, and refreshing again would only cost a round trip.
    func refreshUnderLock(margin: RefreshMargin, force: Bool) async throws -> Outcome {
        let before = force ? (try? store.load()).flatMap { $0 }?.token.accessToken : nil
        return try await store.withLock {
            let session: StoredSession?
            do throws(TokenStoreError) { session = try store.load() } catch { throw LatchkeyError.storage(error) }
            guard let session else { throw LatchkeyError.notSignedIn }
            // Another task or process may have refreshed while we waited for the lock.
            if !force, session.isFresh(at: time.now(), margin: margin) { return Outcome(session: session) }
            if force, let before, Self.replaced(before, by: session.token), session.isFresh(at: time.now(), margin: margin) {
                return Outcome(session: session)
            }
            do {
                // With a token still valid to hand out, one attempt: a failure is ridden out below.
                let outcome = try await refresh(session, retrying: force || !session.token.isValid(at: time.now(), minTTL: 0))
                store.recordRefresh(RefreshAttempt(at: time.now()))
                return outcome
            } catch let error as LatchkeyError {
                store.recordRefresh(RefreshAttempt(at: time.now(), failure: error.message))
                if !force && Refresher.isTransient(error) && session.token.isValid(at: time.now(), minTTL: 0) {
                    // Refreshing early failed for a passing reason (network, 5xx, no room to save
                    // yet) but the token has not expired: hand it out rather than fail a caller
                    // that could still use it.
                    return Outcome(session: session)
                }
                throw error
            }
        }
    }

    /// True when `token` is not the access token `before` (compared in constant time).
    static func replaced(_ before: String, by token: Token) -> Bool {
        !ConstantTime.equals(Array(before.utf8), Array(token.accessToken.utf8))
    }

    /// Failures worth riding out with a still-valid token: transient ones (`TransientFailure`), and
    /// no room to reserve the save (nothing was sent, so the session is as good as before).
    static func isTransient(_ error: LatchkeyError) -> Bool {
        if case .storage(.reservationFailed) = error { return true }
        return TransientFailure.isTransient(error)
    }

    func refresh(_ session: StoredSession, retrying: Bool = true) async throws(LatchkeyError) -> Outcome {
        if session.grant == .clientCredentials || session.grant == .jwtBearer { return try await renewGrant(session) }
        guard let refreshToken = session.token.refreshToken else {
            throw .reauthenticationRequired(reason: "no refresh token is stored")
        }
        let (client, bound) = try client(for: session)
        // Before the request: once the provider has rotated the refresh token, a save that fails for
        // lack of space would lose the session. Sized from what will be written: the session with
        // every nonce this process holds, not the file as it was read.
        var planned = session
        planned.dpop?.nonces = bound.nonces.recent
        let reserved = try reserve(for: planned)
        defer { reserved.release() }
        let response: TokenResponse
        do {
            response = try await client.refresh(refreshToken: refreshToken, retrying: retrying)
        } catch .reauthenticationRequired(let reason) {
            // The refresh token is dead: clear local tokens so status says "not signed in".
            do { try store.delete() } catch { throw .storage(error) }
            throw .reauthenticationRequired(reason: reason)
        }
        let now = time.now()
        let skew = ClockSkew.measure(serverDate: response.serverDate, localNow: now)
        var updated = session
        updated.token = response.token(at: now, previous: session.token)
        updated.token.idToken = session.token.idToken
        updated.updatedAt = now
        updated.dpop?.nonces = bound.nonces.recent

        if let idToken = response.idToken {
            // The rotated refresh token goes to disk before the ID token is judged. Judging it can
            // take a round trip (a new signing key means a JWKS fetch: 30 s when the provider
            // stalls), and a process killed in that time lost the only live refresh token: the next
            // refresh sent the spent one, and a provider with reuse detection revokes the whole
            // family (the 30-minute soaks of issue 36 found it). Until judged, the answer is
            // untrusted: the interim session keeps the previous access and ID tokens, which is also
            // what stays when the ID token is refused (OIDC Core §12.2, signature, claims): its
            // access token is never served, the previous one stays while it is valid, and once it
            // expires the next refresh must succeed or the person signs in again.
            // `updatedAt` stays the previous token's too: the standard margin measures a token's
            // lifetime from it, and a 70 s token with 58 s left, stamped now, would look like a 58 s
            // token with half its life left, fresh, and be handed out by every process reading the
            // file meanwhile instead of waiting for the new one.
            var interim = updated
            interim.token = session.token
            interim.token.refreshToken = updated.token.refreshToken
            interim.updatedAt = session.updatedAt
            _ = try save(interim, into: reserved)
            let verified = try await verification.verify(
                idToken, from: session.metadata, skew: skew, accessToken: response.accessToken)
            if let previousJSON = session.idTokenClaimsJSON, let previous = try? JWTClaims(payload: Array(previousJSON.utf8)) {
                try IDTokenVerifier.checkRefresh(verified, previous: previous)
            }
            updated.token.idToken = verified.compact
            updated.subject = verified.subject
            updated.idTokenClaimsJSON = verified.claimsJSON
            // Outside the reservation: if this save fails, the session on disk is still whole (the
            // interim one), and the next refresh starts from it.
            do throws(TokenStoreError) { try store.save(updated) } catch { throw .storage(error) }
            return Outcome(session: updated, skew: skew, binding: bound)
        }
        // No ID token to judge: one save, into the space reserved before the request.
        updated = try save(updated, into: reserved)
        return Outcome(session: updated, skew: skew, binding: bound)
    }

    /// A client-credentials or JWT bearer session has no refresh token: the grant runs again (RFC
    /// 6749 §4.4, RFC 7523 §2.1, the assertion read from its file now, so a rotated one is taken
    /// and an expired one refused before anything is sent), under the same lock, so concurrent
    /// callers still make one request. A refused client keeps its stored session (nothing a
    /// person can sign in again to fix); what the server sent is reported as it is.
    func renewGrant(_ session: StoredSession) async throws(LatchkeyError) -> Outcome {
        var jwt: String?
        if session.grant == .jwtBearer {
            guard let assertion else { throw .configuration(.missingAssertion) }
            jwt = try assertion.jwt(at: time.now())
        }
        let (client, bound) = try client(for: session)
        var planned = session
        planned.dpop?.nonces = bound.nonces.recent
        let reserved = try reserve(for: planned)
        defer { reserved.release() }
        let response: TokenResponse
        if let jwt { response = try await client.jwtBearer(assertion: jwt) } else { response = try await client.clientCredentials() }
        let now = time.now()
        var updated = session
        updated.token = ClientCredentialsToken.token(from: response, at: now)
        updated.updatedAt = now
        updated.dpop?.nonces = bound.nonces.recent
        updated = try save(updated, into: reserved)
        return Outcome(session: updated, skew: ClockSkew.measure(serverDate: response.serverDate, localNow: now), binding: bound)
    }

    /// The token client for `session`: its binding with the stored DPoP key, and for a bound
    /// session the rule that its tokens stay bound.
    private func client(for session: StoredSession) throws(LatchkeyError) -> (TokenClient, SessionBinding) {
        let bound = try binding.bound(to: session.dpop, keys: keys)
        var client = TokenClient(configuration: configuration, metadata: session.metadata, binding: bound)
        if session.dpop != nil { client.requiresBinding = true }
        return (client, bound)
    }

    private func reserve(for session: StoredSession) throws(LatchkeyError) -> any ReservedSave {
        do { return try store.reserveSave(for: session) } catch { throw .storage(error) }
    }

    /// Saves the refreshed `session`. Should that fail, it is saved once more without the nonces:
    /// they only spare the next request a round trip, while the rotated refresh token it carries is
    /// the only one left. The first failure is reported when the second save fails too.
    func save(_ session: StoredSession, into reserved: any ReservedSave) throws(LatchkeyError) -> StoredSession {
        do {
            try reserved.save(session)
            return session
        } catch {
            guard let dpop = session.dpop, !dpop.nonces.isEmpty else { throw .storage(error) }
            reserved.release()
            var lean = session
            lean.dpop?.nonces = RecentNonces()
            do { try store.save(lean) } catch { throw .storage(error) }
            notes?.post(.savedWithoutNonces)
            return lean
        }
    }
}
