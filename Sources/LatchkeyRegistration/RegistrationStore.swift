import Glibc
import Latchkey
import LatchkeyCrypto
import LatchkeyHTTP

/// The encrypted file holding a profile's `RegistrationRecord`: the token file format (AES-256-GCM
/// under the machine key, written atomically, mode 0600), at `<state-dir>/NAME@registration.tokens`.
/// A file of its own, not the session's token file, because `logout` deletes that one and a new
/// `login` replaces it, while the registration must outlive both until `register --delete`.
///
/// `@` is in no profile name, so no profile's files (`P.tokens`, `P.lock`) and no session store
/// reach this name, and the header's profile (`NAME@registration`) is one no session store
/// accepts. Earlier releases wrote `NAME.registration.tokens`, which is profile
/// `NAME.registration`'s token file: such a record is still read, then moved here.
public struct RegistrationStore: Sendable {
    /// The state directory.
    public let stateDirectory: String
    /// The profile the registration belongs to.
    public let profile: String
    /// Bound into the machine key's HKDF, as for token files.
    let machineIDPath: String

    /// The store of `profile`'s registration under `stateDirectory`.
    public init(stateDirectory: String, profile: String) {
        self.init(stateDirectory: stateDirectory, profile: profile, machineIDPath: "/etc/machine-id")
    }

    init(stateDirectory: String, profile: String, machineIDPath: String) {
        self.stateDirectory = StateDirectory.trimmingTrailingSlashes(stateDirectory)
        self.profile = profile
        self.machineIDPath = machineIDPath
    }

    /// The name the file's header and AAD carry, and the file name's stem.
    public static func fileProfile(_ profile: String) -> String { profile + "@registration" }

    /// The stem of earlier releases.
    static func legacyFileProfile(_ profile: String) -> String { profile + ".registration" }

    /// The file's path.
    public var path: String { stateDirectory + "/" + Self.fileProfile(profile) + ".tokens" }

    /// Where earlier releases kept the record.
    var legacyPath: String { stateDirectory + "/" + Self.legacyFileProfile(profile) + ".tokens" }

    /// True when the file exists (without opening it), or a record at the earlier name might.
    public var exists: Bool { access(path, F_OK) == 0 || access(legacyPath, F_OK) == 0 }

    /// The record, or nil when there is none. A record at the earlier name is moved to `path`.
    public func load() throws(TokenStoreError) -> RegistrationRecord? {
        guard try StateDirectory.checkExisting(stateDirectory) else { return nil }
        if let held = try RegistrationRecordFile.read(path: path, fileProfile: Self.fileProfile(profile), machineIDPath: machineIDPath) {
            guard let body = held.registration, var record = try? RegistrationRecord(json: body) else {
                throw .corrupt(path: path, reason: "no client registration in a registration file")
            }
            record.issuer = held.issuer
            return record
        }
        guard EncryptedFileTokenStore.isValidProfileName(Self.legacyFileProfile(profile)),
            let held = try RegistrationRecordFile.read(
                path: legacyPath, fileProfile: Self.legacyFileProfile(profile), machineIDPath: machineIDPath),
            let body = held.registration
        else { return nil }
        guard var record = try? RegistrationRecord(json: body) else {
            throw .corrupt(path: legacyPath, reason: "no client registration in a registration file")
        }
        if !record.tracksGeneratedKeys, let file = record.keyFile, !record.generatedKeys.contains(file) {
            // Earlier releases generated only these two names and lost track of one made by a
            // rotation away from a key the person brought.
            let keys = stateDirectory + "/keys/" + profile
            if file == keys + ".pem" || file == keys + ".rotated.pem" { record.generatedKeys.append(file) }
        }
        record.tracksGeneratedKeys = true
        try save(record, issuer: held.issuer, at: held.updatedAt)
        unlink(legacyPath)
        try AtomicFileWriter.syncDirectory(stateDirectory)
        record.issuer = held.issuer
        return record
    }

    /// Replaces the record atomically.
    public func save(_ record: RegistrationRecord, issuer: String, at now: Timestamp) throws(TokenStoreError) {
        // The session members are what the format requires; the record is the content.
        var holder = StoredSession(
            profile: Self.fileProfile(profile), issuer: issuer, clientID: record.registration.clientID,
            token: Token(accessToken: "", tokenType: "registration"),
            metadata: ProviderMetadata(issuer: issuer), createdAt: now, updatedAt: now)
        var stored = record
        stored.issuer = nil
        holder.registration = stored.json
        try StateDirectory.ensure(stateDirectory)
        let random: SecureRandom
        do { random = try SecureRandom() } catch { throw .keyUnavailable("the system random source failed: \(error)") }
        let salt = random.bytes(TokenFileKeyDerivation.saltByteCount), nonce = random.bytes(TokenFile.nonceByteCount)
        guard salt.count == TokenFileKeyDerivation.saltByteCount, nonce.count == TokenFile.nonceByteCount else {
            throw .keyUnavailable("the random source returned too few bytes")
        }
        guard let material = try KeyMaterial.machineKey(directory: stateDirectory, random: random) else {
            throw .keyUnavailable("machine key \(stateDirectory)/\(KeyMaterial.machineKeyFileName) could not be made")
        }
        let key = try KeyMaterial.hkdfFileKey(material: material, salt: salt, machineID: KeyMaterial.machineID(path: machineIDPath))
        let file = try TokenFile.seal(
            holder, keySource: .machine, keyDerivation: .hkdfSHA256(salt: salt), nonce: nonce,
            fileKey: key, path: path)
        try AtomicFileWriter.write(
            file.encoded(), to: path, directory: stateDirectory,
            fileName: Self.fileProfile(profile) + ".tokens", random: random)
    }

    /// Removes the file (and one at the earlier name), then syncs the folder.
    public func delete() throws(TokenStoreError) {
        for file in [path, legacyPath] where file == path || (try? isRecord(legacy: file)) == true {
            if unlink(file) != 0 && errno != ENOENT { throw .io(path: file, operation: "delete", errno: errno) }
        }
        try AtomicFileWriter.syncDirectory(stateDirectory)
    }

    private func isRecord(legacy file: String) throws(TokenStoreError) -> Bool {
        try RegistrationRecordFile.read(path: file, fileProfile: Self.legacyFileProfile(profile), machineIDPath: machineIDPath)?
            .registration != nil
    }
}
