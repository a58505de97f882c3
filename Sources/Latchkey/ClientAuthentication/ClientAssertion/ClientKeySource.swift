import LatchkeyCrypto

/// Where a `private_key_jwt` client gets its private key: asked at each use, so the key is never
/// copied into a profile or held longer than one signature. A program keeping the key elsewhere
/// (a TPM-sealed credential, an HSM front) brings its own.
public protocol ClientKeySource: Sendable {
    /// The PEM text of the private key (PKCS#8, SEC1 or PKCS#1, unencrypted), read now.
    /// Throws `.clientKey(ClientKeyError)` when it cannot be had.
    func privateKeyPEM() throws(LatchkeyError) -> SecretBytes
}

/// A PEM key file, read at each use with the token file's rules: a regular file owned by the
/// effective user with no group or other permission bits, at most 64 KiB. Symbolic links are
/// followed (a provisioned key often lives in a read-only image and is linked into place); the
/// checks apply to the file they lead to.
public struct ClientKeyFile: ClientKeySource {
    /// The file.
    public let path: String
    /// Larger than any PEM private key of the accepted sizes.
    public static let limit = OwnerOnlyFile.defaultLimit

    /// A key read from `path`.
    public init(path: String) { self.path = path }

    /// The file's bytes, in zeroed-on-release storage; the read buffer is cleared too (the rules
    /// and the clearing are `OwnerOnlyFile`'s, shared with the mTLS certificate files).
    public func privateKeyPEM() throws(LatchkeyError) -> SecretBytes {
        do {
            return try OwnerOnlyFile.readSecret(path, limit: Self.limit)
        } catch .io(_, _, errno: 2) {  // ENOENT: OwnerOnlyFile's "does not exist"
            throw .clientKey(ClientKeyError.missing(path: path))
        } catch {
            throw .clientKey(ClientKeyError.unreadable(path: path, error))
        }
    }
}
