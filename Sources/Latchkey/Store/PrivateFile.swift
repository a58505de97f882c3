import LatchkeyCrypto

/// Small owner-only files that live beside the token file (the CLI's `profiles/NAME.json`), written
/// and read with the token file's own rules, so there is one implementation of them: folders made
/// 0700 and checked, atomic replacement (temporary file, fsync, rename, fsync of the folder) with
/// mode 0600, and reads that refuse symbolic links, other owners and group or world access.
package enum PrivateFile {
    /// Creates `directory` (and missing parents) if needed, then replaces `directory/fileName`
    /// with `bytes` atomically. On failure the old file is untouched.
    package static func write(_ bytes: [UInt8], directory: String, fileName: String) throws(TokenStoreError) {
        try StateDirectory.ensure(directory)
        let random: SecureRandom
        do { random = try SecureRandom() } catch {
            throw .io(path: directory + "/" + fileName, operation: "seed the random generator for", errno: 5)
        }
        try AtomicFileWriter.write(
            bytes, to: directory + "/" + fileName, directory: directory,
            fileName: fileName, random: random)
    }

    /// The contents of `path`, or nil when it (or its folder) does not exist; at most `limit`
    /// bytes. The folder holding it is checked first, with the rules of `write`.
    package static func read(_ path: String, limit: Int) throws(TokenStoreError) -> [UInt8]? {
        guard try checkFolder(folder(of: path)) else { return nil }
        return try SecureFileReader.read(path: path, limit: limit, policy: .ownerOnly, followSymlinks: false) { size in
            .tooLarge(path: path, size: size, limit: limit)
        }
    }

    /// Checks an existing folder before reading from it, with the rules `write` applies: a
    /// directory (or a symbolic link to one) owned by the effective user that group and others
    /// cannot write. Creates nothing; false when it does not exist. A reader uses this for each
    /// folder above the file that it trusts, such as the state folder above `profiles/`.
    package static func checkFolder(_ path: String) throws(TokenStoreError) -> Bool {
        try StateDirectory.checkExisting(StateDirectory.trimmingTrailingSlashes(path))
    }

    /// `path` without its last component ("." for a bare name).
    static func folder(of path: String) -> String {
        guard let slash = path.lastIndex(of: "/") else { return "." }
        return slash == path.startIndex ? "/" : String(path[..<slash])
    }
}
