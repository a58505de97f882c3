/// Files a person names that hold nothing secret (a client certificate, RFC 8705): read by path at
/// each use with the ordinary rules of a public file. Any owner and mode (a certificate is usually
/// 0644), but a regular file within a size limit; a symbolic link is followed, as the person
/// chose the path. Their private keys go through `OwnerOnlyFile` instead.
package enum PublicFile {
    /// The contents of `path`; `.io(…ENOENT)` when it does not exist, `.unsafePermissions` when it
    /// is not a regular file, `.tooLarge` beyond `limit`.
    package static func read(_ path: String, limit: Int = OwnerOnlyFile.defaultLimit) throws(TokenStoreError) -> [UInt8] {
        guard
            let bytes = try SecureFileReader.read(
                path: path, limit: limit, policy: .anyOwner, followSymlinks: true,
                tooLarge: { .tooLarge(path: path, size: $0, limit: limit) })
        else {
            throw .io(path: path, operation: "open", errno: 2)  // ENOENT
        }
        return bytes
    }
}
