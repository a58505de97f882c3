import Latchkey
import LatchkeyCrypto

/// A client key `register` generated, kept in the token file's container (docs/token-file.md) and
/// sealed the token file's way: AES-256-GCM under a key derived from the profile's key source
/// (HKDF over `machine.key` bound to `/etc/machine-id`, the systemd credential or the key file;
/// PBKDF2 over a passphrase), a fresh salt and nonce per write. The payload is the PEM itself;
/// the header names `PROFILE@client-key`, and the AAD binds it, so a key file moved to another
/// profile does not open. A stolen disk without the key source yields no `private_key_jwt` key.
package enum SealedClientKey {
    /// The name the header and the AAD carry for `profile`'s keys.
    static func label(_ profile: String) -> String { profile + "@client-key" }

    /// True when `bytes` are a sealed key rather than PEM text.
    static func isSealed(_ bytes: [UInt8]) -> Bool { bytes.starts(with: TokenFile.magic) }

    /// The file's bytes for `pem`, sealed under `store`'s key source.
    static func seal(_ pem: SecretBytes, store: EncryptedFileTokenStore) throws(TokenStoreError) -> [UInt8] {
        // The machine key is made in the state folder on first use.
        try StateDirectory.ensure(store.stateDirectory)
        let random: SecureRandom
        do { random = try SecureRandom() } catch { throw .keyUnavailable("the system random source failed: \(error)") }
        let salt = random.bytes(TokenFileKeyDerivation.saltByteCount), nonce = random.bytes(TokenFile.nonceByteCount)
        guard salt.count == TokenFileKeyDerivation.saltByteCount, nonce.count == TokenFile.nonceByteCount else {
            throw .keyUnavailable("the random source returned too few bytes")
        }
        let derivation: TokenFileKeyDerivation =
            store.keySource == .passphrase
            ? .pbkdf2SHA256(iterations: TokenFileKeyDerivation.minimumIterations, salt: salt) : .hkdfSHA256(salt: salt)
        let key = try store.fileKey(for: derivation, creatingMachineKey: true, random: random)
        var plaintext = pem.bytes
        defer { plaintext.withUnsafeMutableBytes { TokenFile.zeroize($0) } }
        var file = TokenFile(
            keySource: store.keySource.kind, profile: label(store.profile), keyDerivation: derivation,
            nonce: nonce, ciphertext: [UInt8](repeating: 0, count: plaintext.count), tag: [])
        let sealed: (ciphertext: [UInt8], tag: [UInt8])
        do {
            sealed = try AESGCM.seal(
                plaintext, key: key, nonce: nonce,
                authenticating: TokenFile.additionalData(header: file.header, expectedProfile: file.profile))
        } catch {
            throw .keyUnavailable("encryption failed: \(error)")
        }
        file.ciphertext = sealed.ciphertext
        file.tag = sealed.tag
        return file.encoded()
    }

    /// The PEM in the sealed `bytes` read from `path`. A key sealed under the machine key still
    /// opens after the profile moved to another key source (`login --key-source`); any other
    /// mismatch is `.keySourceMismatch`.
    static func open(_ bytes: [UInt8], path: String, store: EncryptedFileTokenStore) throws(TokenStoreError) -> SecretBytes {
        let file = try TokenFile.decode(bytes, path: path)
        let expected = label(store.profile)
        guard file.profile == expected else { throw .profileMismatch(path: path, expected: expected, found: file.profile) }
        let opener: EncryptedFileTokenStore
        if file.keySource == store.keySource.kind {
            opener = store
        } else if file.keySource == .machine {
            opener = EncryptedFileTokenStore(stateDirectory: store.stateDirectory, profile: store.profile, keySource: .machine)
        } else {
            throw .keySourceMismatch(path: path, file: file.keySource.description, configured: store.keySource.kind.description)
        }
        let key = try opener.fileKey(for: file.keyDerivation, creatingMachineKey: false, random: nil)
        var plaintext: [UInt8]
        do {
            plaintext = try AESGCM.open(
                file.ciphertext, tag: file.tag, key: key, nonce: file.nonce,
                authenticating: TokenFile.additionalData(header: file.header, expectedProfile: expected))
        } catch {
            throw .wrongKeyOrTampered(path: path)
        }
        defer { plaintext.withUnsafeMutableBytes { TokenFile.zeroize($0) } }
        return SecretBytes(plaintext)
    }
}

/// A profile's client key file, read at each use with `ClientKeyFile`'s rules: a key `register`
/// generated is sealed (`SealedClientKey`) and opened with the profile's token store; a PEM key
/// the person brought is used as it is.
public struct ProfileClientKeyFile: ClientKeySource {
    /// The file.
    public let path: String
    private let store: EncryptedFileTokenStore

    /// The key at `path`, opened with `store`'s key source (the profile's token store).
    public init(path: String, store: EncryptedFileTokenStore) {
        self.path = path
        self.store = store
    }

    /// The PEM text: the file's, or the sealed key's.
    public func privateKeyPEM() throws(LatchkeyError) -> SecretBytes {
        let bytes = try ClientKeyFile(path: path).privateKeyPEM()
        let sealed = bytes.withUnsafeBytes { SealedClientKey.isSealed(Array($0.prefix(TokenFile.magic.count))) }
        guard sealed else { return bytes }
        do {
            var raw = bytes.bytes
            defer { raw.withUnsafeMutableBytes { TokenFile.zeroize($0) } }
            return try SealedClientKey.open(raw, path: path, store: store)
        } catch {
            throw .clientKey(ClientKeyError.unreadable(path: path, error))
        }
    }
}
