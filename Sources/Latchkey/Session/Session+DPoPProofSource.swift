import LatchkeyCrypto
import LatchkeyHTTP
import LatchkeyJOSE

extension Session: DPoPProofSource {
    /// `TokenSource`: a session makes the proofs of its own bound tokens.
    public nonisolated var dpopProofs: (any DPoPProofSource)? { self }

    /// A proof for a resource request with `accessToken`, from the stored session's key.
    /// The session is the one this process last read or refreshed when it holds `accessToken`
    /// (so a redirect hop reads nothing), else the stored one.
    public func dpopProof(method: String, url: HTTPURL, accessToken: String) async throws(LatchkeyError) -> String {
        var session = current
        if session.map({ !ConstantTime.equals(Array($0.token.accessToken.utf8), Array(accessToken.utf8)) }) ?? true {
            session = try loadSession()
            current = session
        }
        guard let session, let dpop = session.dpop else { throw .tokenBinding(.missingKey) }
        return try dpopHandle(for: dpop).resourceProof(method: method, url: url, accessToken: accessToken)
    }

    /// The handle for a stored session's key (decoded once per process), with its remembered
    /// nonces joining those heard here as older ones: the same key and nonces the session's binding
    /// proves provider requests with.
    func dpopHandle(for dpop: DPoPBinding) throws(LatchkeyError) -> DPoPHandle {
        nonces.merge(dpop.nonces)
        return DPoPHandle(key: try keys.key(for: dpop, random: random), nonces: nonces, time: time, random: random)
    }

    /// Remembers a resource server's nonce, for this process and in the token file, so the next
    /// process's first proof to that server carries it (the authorization server's is saved with
    /// each sign-in and refresh). The file is written only for a nonce that answered a challenge
    /// or the first from that server in this process, and never for a session without DPoP.
    @discardableResult
    public func rememberNonce(_ nonce: String, for url: HTTPURL) async -> NonceChange {
        await rememberNonce(nonce, for: url, challenged: false)
    }

    @discardableResult
    public func rememberNonce(_ nonce: String, for url: HTTPURL, challenged: Bool) async -> NonceChange {
        let change = nonces.remember(nonce, for: url, from: .resourceServer)
        guard change.isKept else { return change }
        // Before the lock: a session this process knows to be unbound has nowhere to keep it.
        if let current, current.dpop == nil { return change }
        let key = NonceHolder.resourceServer.key(url.origin)
        guard challenged || !savedNonceKeys.contains(key) else { return change }
        savedNonceKeys.insert(key)
        await saveNonce(nonce, key: key, origin: url.origin)
        return change
    }

    /// Writes `nonce` into the stored session under the store's lock, over the tokens stored then
    /// (another process may have refreshed). Best effort, never at the cost of the tokens: nothing
    /// is written when there is no bound session (logged out meanwhile) or the nonce is already
    /// there, and a failed write leaves the file as it was (saves are atomic); a nonce only saves
    /// the next process one round trip, so a failure is only noted (`-v`).
    private func saveNonce(_ nonce: String, key: String, origin: String) async {
        let store = self.store
        do {
            try await store.withLock {
                guard var session = try store.load(), var dpop = session.dpop, dpop.nonces[key] != nonce else { return }
                dpop.nonces.remember(nonce, for: key)
                session.dpop = dpop
                try store.save(session)
            }
        } catch {
            notes.post(.nonceNotSaved(origin: origin, reason: "\(error)"))
        }
    }
}
