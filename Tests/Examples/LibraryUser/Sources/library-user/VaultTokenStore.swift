import Latchkey
import Synchronization

/// Sessions in memory, one per profile: a stand-in for a database table or a secret manager.
/// Only this process sees them, so an in-process lock is exclusive enough.
final class MemoryVault: Sendable {
    let sessions = Mutex<[String: StoredSession]>([:])
    let lock = AsyncLock()
}

/// One profile's session in a `MemoryVault`. The `Session` takes its profile from here.
struct VaultTokenStore: TokenStore {
    let vault: MemoryVault
    let profile: String

    func load() throws(TokenStoreError) -> StoredSession? { vault.sessions.withLock { $0[profile] } }
    func save(_ session: StoredSession) throws(TokenStoreError) { vault.sessions.withLock { $0[profile] = session } }
    func delete() throws(TokenStoreError) { vault.sessions.withLock { $0[profile] = nil } }

    func withLock<T: Sendable>(_ body: @Sendable () async throws -> T) async throws -> T {
        try await vault.lock.run(body)
    }
}
