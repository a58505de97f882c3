import Glibc
import LatchkeyCrypto
import LatchkeyHTTP
import LatchkeyJOSE

/// A device registering itself as its own client (RFC 7591) and managing that registration
/// (RFC 7592), with the local files kept consistent with the provider at every write: the
/// registration file, the generated key under `<state-dir>/keys/` and the profile.
///
/// Ordering is what makes a SIGKILL harmless: nothing is written before the provider created the
/// client; a rotation first registers old *and* new key, then switches the profile (one atomic
/// write of path and kid), then drops the old key, so at every point the provider accepts the
/// key the profile names; a deletion revokes, marks the record, deletes at the provider, then
/// removes local files, and a rerun finishes a deletion the provider already confirmed.
package struct DeviceRegistration: Sendable {
    /// The state directory.
    public let stateDirectory: String
    /// The profile.
    public let profile: String
    /// The network.
    public let transport: any HTTPTransport
    /// Called after each write, with its name (tests stop the process there).
    public var checkpoint: @Sendable (String) -> Void = { _ in }
    private let random: SecureRandom

    /// Registration for `profile` under `stateDirectory`.
    public init(stateDirectory: String, profile: String, transport: any HTTPTransport, random: SecureRandom) {
        self.stateDirectory = stateDirectory
        self.profile = profile
        self.transport = transport
        self.random = random
    }

    /// The registration file.
    public var store: RegistrationStore { RegistrationStore(stateDirectory: stateDirectory, profile: profile) }
    var profiles: ProfileStore { ProfileStore(stateDirectory: stateDirectory) }
    var keyDirectory: String { stateDirectory + "/keys" }

    /// What `create` registers.
    public struct Request: Sendable {
        /// The issuer.
        public var issuer: String
        /// The provisioning (initial access) token, or nil for an open registration endpoint.
        public var initialAccessToken: SecretBytes?
        /// `private_key_jwt` or `none`; nil: `private_key_jwt` when the provider lists it.
        public var authMethod: ClientAuthMethod?
        /// The algorithm of a generated key.
        public var keyAlgorithm: JWSAlgorithm = .es256
        /// An existing key file to register instead of generating one.
        public var clientKeyFile: String?
        /// `client_name`.
        public var clientName: String
        /// Scopes (`scope`), also the profile's.
        public var scopes: [String]
        /// Device grant, code grant, or both.
        public var deviceGrant = true
        /// Code grant.
        public var codeGrant = false
        /// The redirect URI of the code grant.
        public var redirectURI: String?
        /// `software_statement`.
        public var softwareStatement: String?
        /// The provider's dialect.
        public var dialect: RegistrationDialect = .rfc7591
        /// The CA bundle the profile remembers (by absolute path), as `login --ca-file` does.
        public var caFile: String?

        /// A request with the defaults of `register`.
        public init(issuer: String, initialAccessToken: SecretBytes?, clientName: String, scopes: [String]) {
            self.issuer = issuer
            self.initialAccessToken = initialAccessToken
            self.clientName = clientName
            self.scopes = scopes
        }
    }

    /// What `create` did.
    public struct Created: Sendable {
        /// The record stored.
        public var record: RegistrationRecord
        /// The profile written.
        public var settings: ProfileSettings
        /// The key's RFC 7638 thumbprint, when the client authenticates with a key.
        public var keyThumbprint: String?
    }

    // MARK: - Create

    /// Discovers, registers, then writes key, record and profile; on a failed write removes what
    /// it wrote. Throws `RegistrationError`, `LatchkeyError` (network, discovery) or `TokenStoreError`.
    public func create(_ request: Request) async throws -> Created {
        let provider = try await ProviderDiscovery.discoverDocument(issuer: request.issuer, transport: transport)
        let endpoint = try RegistrationClient.registrationEndpoint(provider)
        let offered = provider.metadata.tokenEndpointAuthMethodsSupported ?? []
        let method = request.authMethod ?? (offered.contains("private_key_jwt") ? .privateKeyJWT : ClientAuthMethod.none)
        var key: ClientKey?
        if method == .privateKeyJWT {
            if let path = request.clientKeyFile {
                key = try Self.key(pem: try ClientKeyFile(path: path).privateKeyPEM(), random)
            } else {
                key = try Self.generate(request.keyAlgorithm, random)
            }
        }
        var metadata = ClientMetadata()
        metadata.clientName = request.clientName
        metadata.tokenEndpointAuthMethod = method.rawValue
        metadata.grantTypes = (request.deviceGrant ? [RegistrationDialect.deviceGrantURN] : [])
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
        let client = RegistrationClient(issuer: provider.metadata.issuer, dialect: request.dialect, transport: transport)
        var registration = try await client.create(metadata, endpoint: endpoint, initialAccessToken: request.initialAccessToken)
        // What the provider holds is what was sent: RFC 7591 answers echo it, and a PUT repeats it.
        registration.metadata = metadata

        var written: [String] = []
        do {
            var keyPath = request.clientKeyFile
            if let key, request.clientKeyFile == nil {
                keyPath = try writeKey(key, fileName: profile + ".pem")
                written.append(keyPath!)
            }
            let record = RegistrationRecord(dialect: request.dialect, registration: registration, keyFile: keyPath,
                                            keyGenerated: request.clientKeyFile == nil && key != nil)
            try store.save(record, issuer: provider.metadata.issuer, at: Timestamp.now())
            written.append(store.path)
            checkpoint("create-record")
            var configuration = ClientConfiguration(issuer: provider.metadata.issuer, clientID: registration.clientID,
                                                    scopes: request.scopes.isEmpty ? ClientConfiguration.defaultScopes : request.scopes,
                                                    authMethod: method, redirectURI: request.codeGrant ? request.redirectURI : nil)
            if let key {
                configuration.clientAssertion = ClientAssertionSettings(
                    algorithm: key.algorithm, keyID: key.thumbprint,
                    audience: request.dialect == .glewlwyd ? .endpoint : .issuer)
            }
            var settings = ProfileSettings(client: configuration, keySource: .machine)
            settings.clientKeyFile = keyPath
            settings.caFile = request.caFile
            try profiles.save(settings, profile: profile)
            return Created(record: record, settings: settings, keyThumbprint: key?.thumbprint)
        } catch {
            for path in written.reversed() { unlink(path) }
            unlink(profiles.path(for: profile))
            throw error
        }
    }

    // MARK: - Read

    /// RFC 7592 GET of the stored registration.
    public func show() async throws -> (ClientRegistration, RegistrationDialect) {
        let (record, settings, management) = try loadManaged()
        let client = RegistrationClient(issuer: settings.client.issuer, dialect: record.dialect, transport: transport)
        return (try await client.read(management), record.dialect)
    }

    // MARK: - Rotate

    /// Replaces the client key; returns the new key's thumbprint. A refused first PUT leaves
    /// everything as it was (the new key file is removed).
    public func rotateKey() async throws -> String {
        var (record, settings, management) = try loadManaged()
        let issuer = settings.client.issuer
        guard settings.client.authMethod == .privateKeyJWT, let oldPath = settings.clientKeyFile,
              let oldJWK = record.registration.metadata.jwks?["keys"]?.arrayValue?.last?.objectValue else {
            throw RegistrationError.keyGeneration("the profile does not sign in with a registered key")
        }
        let algorithm = settings.client.clientAssertion.algorithm ?? .es256
        let key = try Self.generate(ClientKey.generatedAlgorithms.contains(algorithm) ? algorithm : .es256, random)
        let client = RegistrationClient(issuer: issuer, dialect: record.dialect, transport: transport)
        let fileName = oldPath.hasSuffix("/" + profile + ".pem") ? profile + ".rotated.pem" : profile + ".pem"
        let newPath = try writeKey(key, fileName: fileName)
        checkpoint("rotate-new-key")

        // 1. The provider holds both keys.
        var both = record.registration.metadata
        both.jwks = ClientKey.keySet([oldJWK, key.publicJWK])
        do {
            _ = try await client.update(both, clientID: record.registration.clientID, management: management)
        } catch {
            unlink(newPath)
            throw error
        }
        record.registration.metadata = both
        try store.save(record, issuer: issuer, at: Timestamp.now())
        checkpoint("rotate-both-keys")

        // 2. The profile switches: path and kid in one atomic write.
        settings.clientKeyFile = newPath
        settings.client.clientAssertion.keyID = key.thumbprint
        settings.client.clientAssertion.algorithm = key.algorithm
        try profiles.save(settings, profile: profile)
        checkpoint("rotate-profile")

        // 3. The old key goes.
        var only = both
        only.jwks = ClientKey.keySet([key.publicJWK])
        _ = try await client.update(only, clientID: record.registration.clientID, management: management)
        record.registration.metadata = only
        record.keyFile = newPath
        try store.save(record, issuer: issuer, at: Timestamp.now())
        checkpoint("rotate-old-key-dropped")
        if record.keyGenerated, oldPath != newPath { unlink(oldPath) }
        return key.thumbprint
    }

    // MARK: - Delete

    /// RFC 7592 DELETE after `revoke` (the caller's logout), then removes key, profile and, last,
    /// the record: a rerun after a stop finds the record and finishes.
    public func delete(revoke: () async throws -> Void) async throws {
        guard var record = try store.load() else { throw RegistrationError.notRegistered(profile: profile) }
        // No profile beside a record marked `deleting`: the provider confirmed and only files are left.
        if let settings = try profiles.load(profile) {
            guard let management = record.management else { throw RegistrationError.managementUnavailable }
            let client = RegistrationClient(issuer: settings.client.issuer, dialect: record.dialect, transport: transport)
            try await revoke()
            checkpoint("delete-revoked")
            do {
                if !record.deleting {
                    record.deleting = true
                    try store.save(record, issuer: settings.client.issuer, at: Timestamp.now())
                    checkpoint("delete-marked")
                }
                try await client.delete(management)
            } catch RegistrationError.managementRefused where record.deleting {
                // The token died with the client in an earlier run stopped after the DELETE.
                // A live registration answers its own token, so this is not a refusal to hide.
            }
            checkpoint("delete-confirmed")
        } else if !record.deleting {
            throw RegistrationError.notRegistered(profile: profile)
        }
        if record.keyGenerated, let path = record.keyFile { unlink(path) }
        unlink(profiles.path(for: profile))
        try? AtomicFileWriter.syncDirectory(stateDirectory + "/profiles")
        checkpoint("delete-profile")
        try store.delete()
    }

    // MARK: - Files

    private static func generate<R: RandomSource>(_ algorithm: JWSAlgorithm, _ random: R) throws(RegistrationError) -> ClientKey {
        try ClientKey.generate(algorithm, random: random)
    }

    private static func key<R: RandomSource>(pem: SecretBytes, _ random: R) throws(RegistrationError) -> ClientKey {
        try ClientKey(pem: pem, algorithm: nil, random: random)
    }

    private func requireSettings() throws -> ProfileSettings {
        guard let settings = try profiles.load(profile) else { throw RegistrationError.notRegistered(profile: profile) }
        return settings
    }

    private func loadManaged() throws -> (RegistrationRecord, ProfileSettings, RegistrationManagement) {
        guard let record = try store.load() else { throw RegistrationError.notRegistered(profile: profile) }
        let settings = try requireSettings()
        guard let management = record.management else { throw RegistrationError.managementUnavailable }
        return (record, settings, management)
    }

    /// Writes `key` owner-only and atomically under `keys/`; the byte copy is zeroed after.
    private func writeKey(_ key: ClientKey, fileName: String) throws(TokenStoreError) -> String {
        var bytes = key.pem.bytes
        defer { bytes.withUnsafeMutableBytes { TokenFile.zeroize($0) } }
        try PrivateFile.write(bytes, directory: keyDirectory, fileName: fileName)
        return keyDirectory + "/" + fileName
    }
}
