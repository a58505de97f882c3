import LatchkeyCrypto
import LatchkeyHTTP
import LatchkeyJOSE

/// Logging out: revoke, then delete, under the lock.
extension Session {

    /// Revokes the refresh token, then the access token (RFC 7009), unless `revoke` is false, and
    /// deletes the local session even when revocation fails. Returns what could not be revoked.
    ///
    /// All of it runs under the store's lock: a refresh in another process that holds the lock
    /// finishes first, and what is revoked is what is stored then, so no rotated refresh token can
    /// be saved after logout has said "revoked and deleted".
    public func logout(revoke: Bool = true) async throws(LatchkeyError) -> [RevocationFailure] {
        let store = self.store
        let configuration = self.configuration
        let binding = Result { () throws(LatchkeyError) in try self.sessionBinding() }
        let keys = self.keys
        current = nil
        do {
            return try await store.withLock { () async throws -> [RevocationFailure] in
                var warnings: [RevocationFailure] = []
                let session: StoredSession?
                do throws(TokenStoreError) { session = try store.load() } catch {
                    // An unreadable file still gets deleted: logout must always leave nothing behind.
                    warnings.append(.unreadableSession(.storage(error)))
                    session = nil
                }
                if revoke, let session {
                    switch binding {
                    case .failure(let error):
                        warnings.append(.failed(session.token.refreshToken == nil ? .accessToken : .refreshToken, error))
                    case .success(let binding):
                        // A key that no longer decodes still lets the revocation go out, without a proof.
                        let bound = (try? binding.bound(to: session.dpop, keys: keys)) ?? binding
                        let client = TokenClient(configuration: configuration, metadata: session.metadata, binding: bound)
                        if let refreshToken = session.token.refreshToken,
                            let w = await client.revoke(refreshToken, kind: .refreshToken, accessToken: session.token.accessToken)
                        {
                            warnings.append(w)
                        }
                        if let w = await client.revoke(
                            session.token.accessToken, kind: .accessToken,
                            accessToken: session.token.accessToken)
                        {
                            warnings.append(w)
                        }
                    }
                }
                do throws(TokenStoreError) { try store.delete() } catch { throw LatchkeyError.storage(error) }
                return warnings
            }
        } catch {
            throw Self.mapped(error)
        }
    }
}
