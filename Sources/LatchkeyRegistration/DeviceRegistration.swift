import Glibc
import Latchkey
import LatchkeyCrypto
import LatchkeyHTTP
import LatchkeyJOSE

/// A device registering itself as its own client (RFC 7591) and managing that registration
/// (RFC 7592), with the local files kept consistent with the provider at every write: the
/// registration file, the generated key under `<state-dir>/keys/` and the profile.
///
/// Ordering is what makes a SIGKILL harmless:
/// - create: nothing is written before the provider created the client; then the key (under a
///   name no other file has), the record marked `pending` (holding the record it replaces), the
///   profile, and the record unmarked. A stop in between is resolved by the profile on the next
///   run (`resolvedRecord`): a profile naming another client means the old state is kept, else
///   the new one; a record without a profile is finished by `finish` or deleted by `delete`.
/// - rotation: the new key's name goes into the record before the key is written; the provider
///   then holds the key the profile signs with (by its kid, whatever an earlier stopped run left
///   in the record) *and* the new key; the profile switches (one atomic write of path and kid);
///   the provider drops the old key; then the generated keys nobody uses are deleted. At every
///   point the provider accepts the key the profile names. Each answer's registration access
///   token and URI are saved before the next request (RFC 7592 §3 lets a PUT rotate them).
/// - deletion: revoke, mark the record, DELETE, remove the local files. A refused DELETE is
///   believed to be an earlier run's success only when that run had sent it (the record as
///   loaded is marked) and a GET says the client is gone.
///
/// Every operation throws `RegistrationError`; what the core reported stays inside it
/// (`.latchkey`, `.storage`, `.profileInvalid`, `.profileStorage`).
package struct DeviceRegistration: Sendable {
    /// The state directory.
    package let stateDirectory: String
    /// The profile.
    package let profile: String
    /// The network.
    package let transport: any HTTPTransport
    /// Called after each write, with its name (tests stop the process there, or fail the write as
    /// a full disk would: its error is thrown as `.storage`).
    package var checkpoint: @Sendable (String) throws(TokenStoreError) -> Void = { _ in }
    /// The token store of the profile under a key source, which seals and opens the keys it
    /// generates (`SealedClientKey`); the caller gives it the environment and passphrase.
    package var keyStore: @Sendable (KeySource) -> EncryptedFileTokenStore
    private let random: SecureRandom
    /// The clock the records' times come from (injected as everywhere in the library).
    private let time: any TimeSource

    /// Registration for `profile` under `stateDirectory`.
    package init(
        stateDirectory: String, profile: String, transport: any HTTPTransport, random: SecureRandom,
        time: any TimeSource = SystemTimeSource()
    ) {
        self.stateDirectory = stateDirectory
        self.profile = profile
        self.transport = transport
        self.random = random
        self.time = time
        keyStore = { EncryptedFileTokenStore(stateDirectory: stateDirectory, profile: profile, keySource: $0) }
    }

    /// The registration file.
    package var store: RegistrationStore { RegistrationStore(stateDirectory: stateDirectory, profile: profile) }
    var profiles: ProfileStore { ProfileStore(stateDirectory: stateDirectory) }
    var keyDirectory: String { stateDirectory + "/keys" }

    /// What `create` registers.
    package struct Request: Sendable {
        /// The issuer.
        package var issuer: String
        /// The provisioning (initial access) token, or nil for an open registration endpoint.
        package var initialAccessToken: SecretBytes?
        /// `private_key_jwt` or `none`; nil: `private_key_jwt` when the provider lists it.
        package var authMethod: ClientAuthMethod?
        /// The algorithm of a generated key.
        package var keyAlgorithm: JWSAlgorithm = .es256
        /// An existing key file to register instead of generating one.
        package var clientKeyFile: String?
        /// `client_name`.
        package var clientName: String
        /// Scopes (`scope`), also the profile's.
        package var scopes: [String]
        /// Device grant, code grant, or both.
        package var deviceGrant = true
        /// Code grant.
        package var codeGrant = false
        /// The redirect URI of the code grant.
        package var redirectURI: String?
        /// `software_statement`.
        package var softwareStatement: String?
        /// The provider's dialect.
        package var dialect: RegistrationDialect = .rfc7591
        /// The CA bundle the profile remembers (by absolute path), as `login --ca-file` does.
        package var caFile: String?
        /// The profile's key source: its token file's, and a generated key's.
        package var keySource: KeySource = .machine

        /// A request with the defaults of `register`.
        package init(issuer: String, initialAccessToken: SecretBytes?, clientName: String, scopes: [String]) {
            self.issuer = issuer
            self.initialAccessToken = initialAccessToken
            self.clientName = clientName
            self.scopes = scopes
        }
    }

    /// What `create` did.
    package struct Created: Sendable {
        /// The record stored.
        package var record: RegistrationRecord
        /// The profile written.
        package var settings: ProfileSettings
        /// The key's RFC 7638 thumbprint, when the client authenticates with a key.
        package var keyThumbprint: String?
    }

    // MARK: - Create

    /// Discovers, registers, then writes key, record and profile. On a failure it removes what
    /// this run wrote and puts back the record and profile it replaced (`--force`). Discovery,
    /// the network and a key file fail as `.latchkey`, the files as `.storage` or `.profile…`.
    package func create(_ request: Request) async throws(RegistrationError) -> Created {
        let existing = try resolvedRecord()
        let existingSettings = try loadProfile()
        let provider: DiscoveredProvider
        do {
            provider = try await ProviderDiscovery.discoverDocument(issuer: request.issuer, transport: transport)
        } catch {
            throw .latchkey(error)
        }
        let endpoint = try RegistrationClient.registrationEndpoint(provider)
        let offered = provider.metadata.tokenEndpointAuthMethodsSupported ?? []
        let method = request.authMethod ?? (offered.contains("private_key_jwt") ? .privateKeyJWT : ClientAuthMethod.none)
        var key: ClientKey?
        if method == .privateKeyJWT {
            if let path = request.clientKeyFile {
                let pem: SecretBytes
                do { pem = try ClientKeyFile(path: path).privateKeyPEM() } catch { throw .latchkey(error) }
                key = try Self.key(pem: pem, random)
            } else {
                key = try Self.generate(request.keyAlgorithm, random)
            }
        }
        var metadata = ClientMetadata()
        metadata.clientName = request.clientName
        metadata.tokenEndpointAuthMethod = method.rawValue
        metadata.grantTypes =
            (request.deviceGrant ? [RegistrationDialect.deviceGrantURN] : [])
            + (request.codeGrant ? ["authorization_code"] : []) + ["refresh_token"]
        if request.codeGrant {
            metadata.responseTypes = ["code"]
            metadata.redirectURIs = request.redirectURI.map { [$0] }
        } else if let placeholder = request.dialect.placeholderRedirectURI {
            metadata.redirectURIs = [placeholder]
        }
        if !request.scopes.isEmpty { metadata.scope = request.scopes.joined(separator: " ") }
        metadata.softwareStatement = request.softwareStatement
        if let key {
            metadata.jwks = ClientKey.keySet([key.publicJWK])
            metadata.tokenEndpointAuthSigningAlg = key.algorithm.rawValue
        }
        let issuer = provider.metadata.issuer
        let client = RegistrationClient(issuer: issuer, dialect: request.dialect, transport: transport, time: time)
        var registration = try await client.create(metadata, endpoint: endpoint, initialAccessToken: request.initialAccessToken)
        // What the provider holds is what was sent: RFC 7591 answers echo it, and a PUT repeats it.
        registration.metadata = metadata

        var createdKey: String?
        var recordWritten = false, profileWritten = false
        do throws(RegistrationError) {
            var keyPath = request.clientKeyFile
            if let key, request.clientKeyFile == nil {
                let path = freshKeyPath(thumbprint: key.thumbprint, preferred: profile + ".pem")
                try writeKey(key, path: path, keySource: request.keySource)
                createdKey = path
                keyPath = path
            }
            var configuration = ClientConfiguration(
                issuer: issuer, clientID: registration.clientID,
                scopes: request.scopes.isEmpty ? ClientConfiguration.defaultScopes : request.scopes,
                authMethod: method, redirectURI: request.codeGrant ? request.redirectURI : nil)
            if let key {
                configuration.clientAssertion = ClientAssertionSettings(
                    algorithm: key.algorithm, keyID: key.thumbprint,
                    audience: request.dialect.assertionAudience)
            }
            var settings = ProfileSettings(client: configuration, keySource: request.keySource)
            settings.clientKeyFile = keyPath
            settings.caFile = request.caFile
            var record = RegistrationRecord(
                dialect: request.dialect, registration: registration, keyFile: keyPath,
                keyGenerated: createdKey != nil)
            record.profileJSON = settings.json.objectValue
            record.pending = true
            record.previous = existing
            try saveRecord(record, issuer: issuer)
            recordWritten = true
            try reached("create-record")
            try saveProfile(settings)
            profileWritten = true
            try reached("create-profile")
            record.issuer = issuer
            return Created(record: finalize(record, profileKey: keyPath), settings: settings, keyThumbprint: key?.thumbprint)
        } catch {
            // Only what this run made goes; what it replaced comes back.
            if profileWritten {
                if let existingSettings {
                    try? profiles.save(existingSettings, profile: profile)
                } else {
                    unlink(profiles.path(for: profile))
                }
            }
            if recordWritten {
                if let existing {
                    try? store.save(existing, issuer: existing.issuer ?? issuer, at: time.now())
                } else {
                    try? store.delete()
                }
            }
            if let createdKey { unlink(createdKey) }
            throw error
        }
    }

    /// Writes the profile of a record whose `create` stopped before the profile was written.
    package func finish() throws(RegistrationError) -> Created {
        guard let record = try resolvedRecord(), let json = record.profileJSON else {
            throw .notRegistered(profile: profile)
        }
        let settings: ProfileSettings
        do { settings = try ProfileSettings(json: json, path: profiles.path(for: profile)) } catch { throw RegistrationError(error) }
        try saveProfile(settings)
        return Created(
            record: record, settings: settings,
            keyThumbprint: settings.client.authMethod == .privateKeyJWT ? settings.client.clientAssertion.keyID : nil)
    }

    /// The record, after resolving a `create` that stopped between the record and the profile:
    /// a profile naming another client than a pending record is the state before that run (the
    /// record it replaced comes back, the keys it made go); otherwise the new record stands.
    package func resolvedRecord() throws(RegistrationError) -> RegistrationRecord? {
        guard let record = try loadRecord() else { return nil }
        guard record.pending else { return record }
        let settings = try loadProfile()
        guard let settings, settings.client.clientID != record.registration.clientID else {
            return finalize(record, profileKey: settings?.clientKeyFile)
        }
        let keep = Set((record.previous?.generatedKeys ?? []) + [settings.clientKeyFile].compactMap { $0 })
        for path in record.generatedKeys where !keep.contains(path) { unlink(path) }
        guard var old = record.previous else {
            try deleteRecord()
            return nil
        }
        try saveRecord(old, issuer: settings.client.issuer)
        old.issuer = settings.client.issuer
        return old
    }

    /// Unmarks a pending record whose profile names it (or that has no profile) and deletes the
    /// generated keys of the record it replaced, except one the profile uses. Best effort: a
    /// failure leaves the record pending, which the next run resolves the same way.
    private func finalize(_ record: RegistrationRecord, profileKey: String?) -> RegistrationRecord {
        var done = record
        if let old = record.previous {
            for path in old.generatedKeys where !record.generatedKeys.contains(path) && path != profileKey { unlink(path) }
        }
        done.pending = false
        done.previous = nil
        if let issuer = record.issuer ?? record.previous?.issuer {
            try? store.save(done, issuer: issuer, at: time.now())
        }
        return done
    }

    // MARK: - Read

    /// RFC 7592 GET of the stored registration (also of a record whose profile is gone).
    package func show() async throws(RegistrationError) -> (ClientRegistration, RegistrationDialect) {
        guard var record = try resolvedRecord() else { throw .notRegistered(profile: profile) }
        let issuer = try issuer(of: record)
        guard let management = record.management else { throw .managementUnavailable }
        let client = RegistrationClient(issuer: issuer, dialect: record.dialect, transport: transport, time: time)
        let answer = try await client.read(management)
        if answer.registrationAccessToken != management.accessToken || answer.registrationClientURI != management.uri {
            record.registration.registrationAccessToken = answer.registrationAccessToken
            record.registration.registrationClientURI = answer.registrationClientURI
            try saveRecord(record, issuer: issuer)
        }
        return (answer, record.dialect)
    }

    // MARK: - Rotate

    /// Replaces the client key; returns the new key's thumbprint. A refused first PUT leaves
    /// everything as it was (the new key file is removed).
    package func rotateKey() async throws(RegistrationError) -> String {
        guard var record = try resolvedRecord(), var settings = try loadProfile() else {
            throw .notRegistered(profile: profile)
        }
        guard let management = record.management else { throw .managementUnavailable }
        let issuer = settings.client.issuer
        guard settings.client.authMethod == .privateKeyJWT, let signingPath = settings.clientKeyFile else {
            throw .keyGeneration("the profile does not sign in with a registered key")
        }
        // The key the profile signs with stays until the profile has switched, whatever an earlier
        // stopped run left in the record.
        let signingJWK = try profileJWK(record, settings, path: signingPath)
        let algorithm = settings.client.clientAssertion.algorithm ?? .es256
        let key = try Self.generate(ClientKey.generatedAlgorithms.contains(algorithm) ? algorithm : .es256, random)
        let client = RegistrationClient(issuer: issuer, dialect: record.dialect, transport: transport, time: time)
        let newPath = freshKeyPath(thumbprint: key.thumbprint, preferred: nil)
        record.generatedKeys.append(newPath)
        try saveRecord(record, issuer: issuer)
        try writeKey(key, path: newPath, keySource: settings.keySource)
        try reached("rotate-new-key")

        // 1. The provider holds both keys.
        var both = record.registration.metadata
        both.jwks = ClientKey.keySet([signingJWK, key.publicJWK])
        let first: ClientRegistration
        do throws(RegistrationError) {
            first = try await client.update(both, clientID: record.registration.clientID, management: management)
        } catch {
            unlink(newPath)
            record.generatedKeys.removeAll { $0 == newPath }
            try? store.save(record, issuer: issuer, at: time.now())
            throw error
        }
        record.registration = Self.held(first, metadata: both, before: record.registration)
        try saveRecord(record, issuer: issuer)
        try reached("rotate-both-keys")

        // 2. The profile switches: path and kid in one atomic write.
        settings.clientKeyFile = newPath
        settings.client.clientAssertion.keyID = key.thumbprint
        settings.client.clientAssertion.algorithm = key.algorithm
        try saveProfile(settings)
        try reached("rotate-profile")

        // 3. The old key goes, with the credentials the first PUT returned.
        var only = both
        only.jwks = ClientKey.keySet([key.publicJWK])
        guard let current = record.management else { throw .managementUnavailable }
        let second = try await client.update(only, clientID: record.registration.clientID, management: current)
        record.registration = Self.held(second, metadata: only, before: record.registration)
        record.keyFile = newPath
        try saveRecord(record, issuer: issuer)
        try reached("rotate-old-key-dropped")

        // 4. Generated keys nobody uses any more: the old one, and any a stopped run left.
        for path in record.generatedKeys where path != newPath { unlink(path) }
        record.generatedKeys = [newPath]
        try? store.save(record, issuer: issuer, at: time.now())
        return key.thumbprint
    }

    /// The public JWK of the key the profile signs with: the registered one its kid names, else
    /// the key file's own.
    private func profileJWK(_ record: RegistrationRecord, _ settings: ProfileSettings, path: String) throws(RegistrationError) -> JSONObject
    {
        let registered = record.registration.metadata.jwks?["keys"]?.arrayValue?.compactMap(\.objectValue) ?? []
        if let kid = settings.client.clientAssertion.keyID, let jwk = registered.first(where: { $0["kid"]?.stringValue == kid }) {
            return jwk
        }
        let pem: SecretBytes
        do { pem = try ProfileClientKeyFile(path: path, store: keyStore(settings.keySource)).privateKeyPEM() } catch {
            throw .latchkey(error)
        }
        return try ClientKey(pem: pem, algorithm: settings.client.clientAssertion.algorithm, random: random).publicJWK
    }

    /// An answer as the record keeps it: the metadata sent, the credentials answered (RFC 7592
    /// §3: a provider may issue a new registration access token), a secret not repeated kept.
    private static func held(_ answer: ClientRegistration, metadata: ClientMetadata, before: ClientRegistration) -> ClientRegistration {
        var held = answer
        held.metadata = metadata
        if held.clientSecret == nil { held.clientSecret = before.clientSecret }
        return held
    }

    // MARK: - Delete

    /// What `delete` deletes, found before the caller revokes anything: the record (its mark says
    /// whether an earlier run had sent the DELETE already), its issuer and its management
    /// credentials.
    package struct Deletion: Sendable {
        fileprivate var record: RegistrationRecord
        fileprivate let issuer: String
        fileprivate let management: RegistrationManagement
    }

    /// The first half of a deletion: the registration to delete, or `.notRegistered` /
    /// `.managementUnavailable`. It writes nothing but what `resolvedRecord` resolves. Between
    /// this and `delete(_:)` the caller revokes the profile's tokens (its logout, with its own
    /// errors), so that nothing is revoked for a profile with nothing to delete.
    package func deletion() throws(RegistrationError) -> Deletion {
        guard let record = try resolvedRecord() else { throw .notRegistered(profile: profile) }
        let issuer = try issuer(of: record)
        guard let management = record.management else { throw .managementUnavailable }
        return Deletion(record: record, issuer: issuer, management: management)
    }

    /// RFC 7592 DELETE of `deletion` (after the caller's revocation), then removes every generated
    /// key, the profile and, last, the record: a rerun after a stop finds the record and
    /// finishes, also when the profile is already gone.
    package func delete(_ deletion: Deletion) async throws(RegistrationError) {
        var record = deletion.record
        let issuer = deletion.issuer, management = deletion.management
        let client = RegistrationClient(issuer: issuer, dialect: record.dialect, transport: transport, time: time)
        let sentBefore = record.deleting
        try reached("delete-revoked")
        if !record.deleting {
            record.deleting = true
            try saveRecord(record, issuer: issuer)
            try reached("delete-marked")
        }
        do throws(RegistrationError) {
            try await client.delete(management)
        } catch .managementRefused(let status) where sentBefore {
            // An earlier run sent the DELETE, and a deleted client's token is refused (RFC 7592
            // §2.1: 401 for a client that does not exist); a GET tells that from a live client
            // refusing.
            if try await isLive(client, management) {
                record.deleting = false
                try? store.save(record, issuer: issuer, at: time.now())
                throw .managementRefused(status: status)
            }
        } catch .latchkey(let error) {
            // A lost answer (or an endpoint that kept failing) keeps the mark: the DELETE may
            // have arrived.
            throw .latchkey(error)
        } catch {
            // The provider answered, so no DELETE happened in this run: the next one must not
            // take a refusal for an earlier success.
            if !sentBefore {
                record.deleting = false
                try? store.save(record, issuer: issuer, at: time.now())
            }
            throw error
        }
        try reached("delete-confirmed")
        for path in record.generatedKeys + (record.previous?.generatedKeys ?? []) { unlink(path) }
        unlink(profiles.path(for: profile))
        try? AtomicFileWriter.syncDirectory(stateDirectory + "/profiles")
        try reached("delete-profile")
        try deleteRecord()
    }

    private func isLive(_ client: RegistrationClient, _ management: RegistrationManagement) async throws(RegistrationError) -> Bool {
        do throws(RegistrationError) {
            _ = try await client.read(management)
            return true
        } catch .managementRefused {
            return false
        }
    }

    // MARK: - Files

    private static func generate<R: RandomSource>(_ algorithm: JWSAlgorithm, _ random: R) throws(RegistrationError) -> ClientKey {
        try ClientKey.generate(algorithm, random: random)
    }

    private static func key<R: RandomSource>(pem: SecretBytes, _ random: R) throws(RegistrationError) -> ClientKey {
        try ClientKey(pem: pem, algorithm: nil, random: random)
    }

    /// The issuer: the profile's, else the record's file's (a profile already removed).
    private func issuer(of record: RegistrationRecord) throws(RegistrationError) -> String {
        if let settings = try loadProfile() { return settings.client.issuer }
        guard let issuer = record.issuer else { throw .notRegistered(profile: profile) }
        return issuer
    }

    /// A key file name under `keys/` that no file has and no other profile's key can get:
    /// `preferred` (`NAME.pem`, the first key's documented name) when free, else
    /// `NAME@<thumbprint>.pem` (`@` is in no profile name).
    private func freshKeyPath(thumbprint: String, preferred: String?) -> String {
        if let preferred, access(keyDirectory + "/" + preferred, F_OK) != 0 { return keyDirectory + "/" + preferred }
        let stem = keyDirectory + "/" + profile + "@" + String(thumbprint.prefix(16))
        var path = stem + ".pem"
        var n = 2
        while access(path, F_OK) == 0 {
            path = stem + "-\(n).pem"
            n += 1
        }
        return path
    }

    /// Writes `key` sealed under `keySource` (`SealedClientKey`), owner-only and atomically at
    /// `path` under `keys/`.
    private func writeKey(_ key: ClientKey, path: String, keySource: KeySource) throws(RegistrationError) {
        do throws(TokenStoreError) {
            let bytes = try SealedClientKey.seal(key.pem, store: keyStore(keySource))
            try PrivateFile.write(bytes, directory: keyDirectory, fileName: String(path.dropFirst(keyDirectory.count + 1)))
        } catch {
            throw .storage(error)
        }
    }

    // MARK: - The layer below, as RegistrationError

    /// The profile's settings, or nil when it has none.
    private func loadProfile() throws(RegistrationError) -> ProfileSettings? {
        do { return try profiles.load(profile) } catch { throw RegistrationError(error) }
    }

    private func saveProfile(_ settings: ProfileSettings) throws(RegistrationError) {
        do { try profiles.save(settings, profile: profile) } catch { throw RegistrationError(error) }
    }

    private func loadRecord() throws(RegistrationError) -> RegistrationRecord? {
        do { return try store.load() } catch { throw .storage(error) }
    }

    /// Saves `record` stamped with the injected clock's time.
    private func saveRecord(_ record: RegistrationRecord, issuer: String) throws(RegistrationError) {
        do { try store.save(record, issuer: issuer, at: time.now()) } catch { throw .storage(error) }
    }

    private func deleteRecord() throws(RegistrationError) {
        do { try store.delete() } catch { throw .storage(error) }
    }

    /// The checkpoint after the write named `point`.
    private func reached(_ point: String) throws(RegistrationError) {
        do { try checkpoint(point) } catch { throw .storage(error) }
    }
}
