import LatchkeyCrypto

/// Files a person names that hold a private key or a credential (a client certificate and its
/// key, RFC 8705): read by path at each use, with the token file's rules for the file itself. It
/// must be a regular file owned by the effective user with no group or other permission bits; a
/// symbolic link is followed, since the person chose the path (a key kept in /etc/latchkey and
/// linked elsewhere, a systemd credential path). Nothing is ever copied or written.
package enum OwnerOnlyFile {
    /// Enough for a certificate chain of a few certificates, or any key Latchkey accepts.
    package static let defaultLimit = 64 * 1024

    /// The contents of `path`; `.io(…ENOENT)` when it does not exist, `.wrongOwner` or
    /// `.unsafePermissions` when its owner or mode is unsafe.
    package static func read(_ path: String, limit: Int = defaultLimit) throws(TokenStoreError) -> [UInt8] {
        guard
            let bytes = try SecureFileReader.read(
                path: path, limit: limit, policy: .ownerOnly, followSymlinks: true,
                tooLarge: { .tooLarge(path: path, size: $0, limit: limit) })
        else {
            throw .io(path: path, operation: "open", errno: 2)  // ENOENT
        }
        return bytes
    }

    /// `read`, for a secret: the bytes are handed over as `SecretBytes` and the copy read is zeroed.
    package static func readSecret(_ path: String, limit: Int = defaultLimit) throws(TokenStoreError) -> SecretBytes {
        var bytes = try read(path, limit: limit)
        defer { bytes.withUnsafeMutableBytes { TokenFile.zeroize($0) } }
        return SecretBytes(bytes)
    }
}
