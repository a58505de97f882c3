import Glibc
import LatchkeyCrypto
import Synchronization

/// The default `TokenStore`: one AES-256-GCM file per profile, `<state-dir>/<profile>.tokens`
/// (format in docs/token-file.md), with `<state-dir>/<profile>.lock` for the cross-process lock.
///
/// - Reads refuse symbolic links, files owned by another user and group/world-accessible modes,
///   and a state folder that another user owns or group/others can write (as writes do).
/// - Writes are atomic (temporary file, fsync, rename, fsync of the folder) and 0600.
/// - A file that cannot be read for any reason throws and is never modified or replaced.
public final class EncryptedFileTokenStore: TokenStore {
    /// The folder holding the files.
    public let stateDirectory: String
    /// The profile name; also the file names' stem.
    public let profile: String
    /// Where the key comes from.
    public let keySource: KeySource
    /// `<state-dir>/<profile>.tokens`.
    public var tokenFilePath: String { stateDirectory + "/" + profile + ".tokens" }
    /// True when the profile's token file exists (whatever it holds); nothing is read or decrypted.
    public var hasTokenFile: Bool { access(tokenFilePath, F_OK) == 0 }

    /// Deletes the token file under the lock, when there is one; a missing state folder is left
    /// missing. This is logout for a profile whose settings are gone.
    public func deleteUnderLock() async throws {
        guard hasTokenFile else { return }
        try await withLock { try self.delete() }
    }

    /// `<state-dir>/<profile>.lock`.
    public var lockFilePath: String { stateDirectory + "/" + profile + ".lock" }
    /// `<state-dir>/machine.key`, used by the `machine` key source.
    public var machineKeyPath: String { stateDirectory + "/" + KeyMaterial.machineKeyFileName }

    private let environment: [String: String]
    private let passphrase: PassphraseProvider
    /// Nil means a fresh `SecureRandom` per write; reads need no randomness, so the hot path
    /// never seeds a DRBG.
    private let injectedRandom: (any RandomSource)?
    private let machineIDPath: String
    private let lockTimeout: Double
    private let spaceReserver: SpaceReserver
    /// The last passphrase-derived key and its parameters, so a save after a load (refresh)
    /// neither asks for the passphrase again nor runs PBKDF2 again. HKDF keys are cheap and
    /// re-derived with a fresh salt on every write.
    private let passphraseKeyCache = Mutex<(TokenFileKeyDerivation, SecretBytes)?>(nil)

    /// Makes a store. Nothing is touched on disk until the first call.
    /// - Parameters:
    ///   - stateDirectory: the state folder; see `defaultStateDirectory(environment:)`.
    ///   - profile: the profile name: 1–64 of `A-Z a-z 0-9 . _ -`, not starting with `.`.
    ///   - keySource: fixed at the profile's first login.
    ///   - environment: the process environment (`CREDENTIALS_DIRECTORY` for `.credential`).
    ///   - passphrase: asked at most once, only for `.passphrase`.
    ///   - random: salts, nonces and the machine key; nil for the system's `SecureRandom`.
    ///   - machineIDPath: bound into the machine key's HKDF; tests point it elsewhere.
    ///   - lockTimeout: how long `withLock` waits before failing with ETIMEDOUT.
    ///   - spaceReserver: reserves the disk space of the token file a refresh will write
    ///     (`reserveSave`); tests inject a failure.
    public convenience init(
        stateDirectory: String, profile: String, keySource: KeySource = .machine,
        environment: [String: String] = [:], passphrase: @escaping PassphraseProvider = { nil },
        random: (any RandomSource)? = nil, machineIDPath: String = "/etc/machine-id",
        lockTimeout: Double = 120
    ) {
        self.init(
            stateDirectory: stateDirectory, profile: profile, keySource: keySource, environment: environment,
            passphrase: passphrase, random: random, machineIDPath: machineIDPath, lockTimeout: lockTimeout,
            spaceReserver: .system)
    }

    /// The same, with the disk-space seam a test replaces (`SpaceReserver`).
    package init(
        stateDirectory: String, profile: String, keySource: KeySource = .machine,
        environment: [String: String] = [:], passphrase: @escaping PassphraseProvider = { nil },
        random: (any RandomSource)? = nil, machineIDPath: String = "/etc/machine-id",
        lockTimeout: Double = 120, spaceReserver: SpaceReserver
    ) {
        self.stateDirectory = StateDirectory.trimmingTrailingSlashes(stateDirectory)
        self.profile = profile
        self.keySource = keySource
        self.environment = environment
        self.passphrase = passphrase
        self.injectedRandom = random
        self.machineIDPath = machineIDPath
        self.lockTimeout = lockTimeout
        self.spaceReserver = spaceReserver
    }

    /// The default state folder: `$STATE_DIRECTORY` (systemd), else `$XDG_STATE_HOME/latchkey`,
    /// else `~/.local/state/latchkey`. (`--state-dir`/`LATCHKEY_STATE_DIR` are the CLI's to apply.)
    public static func defaultStateDirectory(environment: [String: String]) -> String {
        StateDirectory.defaultPath(environment: environment)
    }

    /// `defaultStateDirectory(environment:)` reading the variables through `lookup` (for example
    /// `getenv`), so the caller builds no dictionary; the CLI's `token` hot path uses this.
    public static func defaultStateDirectory(lookup: (String) -> String?) -> String {
        StateDirectory.defaultPath(lookup: lookup)
    }

    /// True when `name` can be a profile name (and so a file name stem).
    public static func isValidProfileName(_ name: String) -> Bool {
        let bytes = Array(name.utf8)
        guard (1...64).contains(bytes.count), bytes[0] != UInt8(ascii: ".") else { return false }
        return bytes.allSatisfy { byte in
            (byte >= 0x30 && byte <= 0x39) || (byte >= 0x41 && byte <= 0x5a) || (byte >= 0x61 && byte <= 0x7a)
                || byte == UInt8(ascii: ".") || byte == UInt8(ascii: "_") || byte == UInt8(ascii: "-")
        }
    }

    // MARK: - TokenStore

    /// Removes the token file (not the lock, which other processes may hold, nor the key).
    public func delete() throws(TokenStoreError) {
        try validateProfile()
        try refuseRegistrationRecord()
        if unlink(tokenFilePath) != 0 {
            let code = errno
            if code == ENOENT { return }
            throw TokenStoreError.io(path: tokenFilePath, operation: "delete", errno: code)
        }
        passphraseKeyCache.withLock { $0 = nil }
        try AtomicFileWriter.syncDirectory(stateDirectory)
    }

    /// Holds `flock(LOCK_EX)` on `<profile>.lock` while `body` runs, released when it returns
    /// or throws. Waiting does not block a thread and honours task cancellation.
    public func withLock<T: Sendable>(_ body: @Sendable () async throws -> T) async throws -> T {
        try validateProfile()
        try StateDirectory.ensure(stateDirectory)
        let lock = try await FileLock.acquire(path: lockFilePath, timeout: lockTimeout)
        defer { lock.release() }
        return try await body()
    }

    /// Creates the token file's temporary file now and reserves on disk the current file's size
    /// plus `reservationMargin`; the save then writes into that space. Throws
    /// `.reservationFailed` (the disk is full) without touching the token file.
    public func reserveSave() throws(TokenStoreError) -> any ReservedSave { try reserveSave(sizing: nil) }

    /// Reserves the larger of the current file and `session` sealed, plus `reservationMargin`: the
    /// session a refresh saves can carry more than the file held (the nonces this process heard).
    public func reserveSave(for session: StoredSession) throws(TokenStoreError) -> any ReservedSave { try reserveSave(sizing: session) }

    private func reserveSave(sizing session: StoredSession?) throws(TokenStoreError) -> any ReservedSave {
        try validateProfile()
        try StateDirectory.ensure(stateDirectory)
        var info = stat()
        let current = lstat(tokenFilePath, &info) == 0 ? Int(info.st_size) : 0
        let planned = session.map { TokenFile.sealedSizeBound($0) } ?? 0
        let staged = try StagedFile.create(
            path: tokenFilePath, directory: stateDirectory, fileName: profile + ".tokens",
            random: try randomSource(), reserving: max(current, planned) + Self.reservationMargin,
            reserve: spaceReserver.reserve)
        return FileReservedSave(store: self, staged: staged)
    }

    /// What a refreshed file may grow by over the current one (longer tokens, a new ID token):
    /// token files are a few KiB.
    public static let reservationMargin = 16 * 1024

    /// Writes the record into the lock file's first bytes (see `RefreshRecordFile`).
    public func recordRefresh(_ attempt: RefreshAttempt) {
        RefreshRecordFile.write(attempt, lockPath: lockFilePath)
    }

    /// The record in the lock file, if any.
    public func lastRefresh() -> RefreshAttempt? {
        RefreshRecordFile.read(lockPath: lockFilePath)
    }

    /// Reads and decrypts the session; nil when there is no token file.
    public func load() throws(TokenStoreError) -> StoredSession? {
        try validateProfile()
        // The folder first, as on write: its files are only as trustworthy as who can swap them.
        guard try StateDirectory.checkExisting(stateDirectory) else { return nil }
        let path = tokenFilePath
        guard
            let bytes = try SecureFileReader.read(
                path: path, limit: TokenFile.maximumByteCount, policy: .ownerOnly, followSymlinks: false,
                tooLarge: { .tooLarge(path: path, size: $0, limit: TokenFile.maximumByteCount) })
        else { return nil }
        let file = try TokenFile.decode(bytes, path: path)
        guard file.keySource == keySource.kind else {
            throw .keySourceMismatch(path: path, file: file.keySource.description, configured: keySource.kind.description)
        }
        guard file.profile == profile else {
            throw .profileMismatch(path: path, expected: profile, found: file.profile)
        }
        let key = try fileKey(for: file.keyDerivation, creatingMachineKey: false, random: nil)
        let session = try file.open(fileKey: key, expectedProfile: profile, path: path)
        // A registration record of an earlier release sits at profile `NAME.registration`'s name.
        guard session.registration == nil else { throw .corrupt(path: path, reason: Self.registrationRecordReason) }
        return session
    }

    /// Encrypts and atomically replaces the token file.
    public func save(_ session: StoredSession) throws(TokenStoreError) {
        try refuseRegistrationRecord()
        let random = try randomSource()
        let bytes = try sealed(session, random: random)
        try AtomicFileWriter.write(
            bytes, to: tokenFilePath, directory: stateDirectory,
            fileName: profile + ".tokens", random: random)
    }

    /// The token file's bytes for `session`.
    fileprivate func sealed(_ session: StoredSession, random: any RandomSource) throws(TokenStoreError) -> [UInt8] {
        try validateProfile()
        guard session.profile == profile else {
            throw .profileMismatch(path: tokenFilePath, expected: profile, found: session.profile)
        }
        try StateDirectory.ensure(stateDirectory)
        let derivation: TokenFileKeyDerivation
        let key: SecretBytes
        if keySource == .passphrase, let cached = passphraseKeyCache.withLock({ $0 }) {
            (derivation, key) = cached
        } else {
            let salt = try randomBytes(TokenFileKeyDerivation.saltByteCount, from: random)
            derivation =
                keySource == .passphrase
                ? .pbkdf2SHA256(iterations: TokenFileKeyDerivation.minimumIterations, salt: salt)
                : .hkdfSHA256(salt: salt)
            key = try fileKey(for: derivation, creatingMachineKey: true, random: random)
        }
        let nonce = try randomBytes(TokenFile.nonceByteCount, from: random)
        let file = try TokenFile.seal(
            session, keySource: keySource.kind, keyDerivation: derivation, nonce: nonce,
            fileKey: key, path: tokenFilePath)
        return file.encoded()
    }

    fileprivate func sealedWithOwnRandom(_ session: StoredSession) throws(TokenStoreError) -> [UInt8] {
        try sealed(session, random: try randomSource())
    }

    // MARK: - Keys

    /// The file key for `derivation` (also of `register`'s sealed client keys); `random` is only
    /// needed (and only given) when writing, where a missing machine key is created.
    package func fileKey(
        for derivation: TokenFileKeyDerivation, creatingMachineKey: Bool,
        random: (any RandomSource)?
    ) throws(TokenStoreError) -> SecretBytes {
        switch (keySource, derivation) {
        case let (.passphrase, .pbkdf2SHA256(iterations, salt)):
            if let cached = passphraseKeyCache.withLock({ $0 }), cached.0 == derivation { return cached.1 }
            let secret: SecretBytes?
            do { secret = try passphrase() } catch {
                throw .keyUnavailable("cannot read the passphrase: \(error)")
            }
            guard let secret, secret.count > 0 else { throw .passphraseRequired }
            let key = try KeyMaterial.pbkdf2FileKey(passphrase: secret, salt: salt, iterations: iterations)
            passphraseKeyCache.withLock { $0 = (derivation, key) }
            return key
        case let (.machine, .hkdfSHA256(salt)):
            guard let material = try KeyMaterial.machineKey(directory: stateDirectory, random: creatingMachineKey ? random : nil) else {
                throw .keyUnavailable("machine key \(machineKeyPath) does not exist (was the state directory copied without it?)")
            }
            return try KeyMaterial.hkdfFileKey(material: material, salt: salt, machineID: KeyMaterial.machineID(path: machineIDPath))
        case let (.credential, .hkdfSHA256(salt)):
            guard let directory = environment["CREDENTIALS_DIRECTORY"], !directory.isEmpty else {
                throw .keyUnavailable(
                    "CREDENTIALS_DIRECTORY is not set; the credential key source needs systemd LoadCredential=\(KeyMaterial.credentialFileName):… or LoadCredentialEncrypted="
                )
            }
            let path = directory + "/" + KeyMaterial.credentialFileName
            guard let material = try KeyMaterial.readKeyFile(path: path, policy: .systemdCredential, followSymlinks: false) else {
                throw .keyUnavailable("credential \(path) does not exist")
            }
            return try KeyMaterial.hkdfFileKey(material: material, salt: salt, machineID: [])
        case let (.file(path), .hkdfSHA256(salt)):
            // An explicit path may be a symlink the admin chose; the target is still checked.
            guard let material = try KeyMaterial.readKeyFile(path: path, policy: .ownerOnly, followSymlinks: true) else {
                throw .keyUnavailable("key file \(path) does not exist")
            }
            return try KeyMaterial.hkdfFileKey(material: material, salt: salt, machineID: [])
        default:
            // decode() ties the KDF to the key source, so this is a file that lies about itself.
            throw .corrupt(path: tokenFilePath, reason: "key derivation does not match the key source")
        }
    }

    private func randomSource() throws(TokenStoreError) -> any RandomSource {
        if let injectedRandom { return injectedRandom }
        do { return try SecureRandom() } catch {
            throw .keyUnavailable("the system random source failed: \(error)")
        }
    }

    private func randomBytes(_ count: Int, from random: any RandomSource) throws(TokenStoreError) -> [UInt8] {
        let bytes = random.bytes(count)
        guard bytes.count == count else { throw .keyUnavailable("the random source returned \(bytes.count) of \(count) bytes") }
        return bytes
    }

    static let registrationRecordReason = "it holds a client registration (register), not a session"

    /// Neither replace nor delete a registration record of an earlier release (`NAME.registration.tokens`).
    private func refuseRegistrationRecord() throws(TokenStoreError) {
        guard RegistrationRecordFile.holdsRecord(path: tokenFilePath, fileProfile: profile, machineIDPath: machineIDPath) else { return }
        throw .corrupt(path: tokenFilePath, reason: Self.registrationRecordReason)
    }

    private func validateProfile() throws(TokenStoreError) {
        guard Self.isValidProfileName(profile) else { throw .invalidProfileName(profile) }
    }
}

/// The save of a refresh's answer into the temporary file `reserveSave` created and sized.
private struct FileReservedSave: ReservedSave {
    let store: EncryptedFileTokenStore
    let staged: StagedFile

    func save(_ session: StoredSession) throws(TokenStoreError) {
        try staged.publish(try store.sealedWithOwnRandom(session))
    }

    func release() { staged.discard() }
}
