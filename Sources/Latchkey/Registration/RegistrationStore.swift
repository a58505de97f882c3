import Glibc
import LatchkeyCrypto
import LatchkeyHTTP

/// The encrypted file holding a profile's `RegistrationRecord`: the token file format (AES-256-GCM
/// under the machine key, written atomically, mode 0600), at `<state-dir>/NAME.registration.tokens`.
/// A file of its own, not the session's token file, because `logout` deletes that one and a new
/// `login` replaces it, while the registration must outlive both until `register --delete`.
public struct RegistrationStore: Sendable {
    /// The state directory.
    public let stateDirectory: String
    /// The profile the registration belongs to.
    public let profile: String
    private let store: EncryptedFileTokenStore

    /// The store of `profile`'s registration under `stateDirectory`.
    public init(stateDirectory: String, profile: String) {
        self.stateDirectory = stateDirectory
        self.profile = profile
        store = EncryptedFileTokenStore(stateDirectory: stateDirectory, profile: Self.fileProfile(profile))
    }

    /// The name the file's header and AAD carry.
    public static func fileProfile(_ profile: String) -> String { profile + ".registration" }

    /// The file's path.
    public var path: String { store.tokenFilePath }

    /// True when the file exists (without opening it).
    public var exists: Bool { store.hasTokenFile }

    /// The record, or nil when there is none.
    public func load() throws(TokenStoreError) -> RegistrationRecord? {
        try store.loadTyped()?.registration
    }

    /// Replaces the record atomically.
    public func save(_ record: RegistrationRecord, issuer: String, at now: Timestamp) throws(TokenStoreError) {
        // The session members are what the format requires; the record is the content.
        var holder = StoredSession(profile: Self.fileProfile(profile), issuer: issuer, clientID: record.registration.clientID,
                                   token: Token(accessToken: "", tokenType: "registration"),
                                   metadata: ProviderMetadata(issuer: issuer), createdAt: now, updatedAt: now)
        holder.registration = record
        try store.saveTyped(holder)
    }

    /// Removes the file (and the lock file the store may have made), then syncs the folder.
    public func delete() throws(TokenStoreError) {
        do { try store.delete() } catch let error as TokenStoreError { throw error } catch {
            throw .io(path: path, operation: "delete", errno: EIO)
        }
        unlink(store.lockFilePath)
    }
}
