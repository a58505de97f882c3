import Glibc

/// The machine-key token file that holds a client registration record (`LatchkeyRegistration`'s
/// `RegistrationStore`) rather than a session. It lives in the core because a session store must
/// recognise such a file at a profile's token-file name (earlier releases put records there) and
/// neither read, replace nor delete it; the record's content is the registration module's.
package enum RegistrationRecordFile {
    /// The machine-key token file at `path`, opened as `fileProfile`; nil when there is none. A
    /// file sealed under another key source is no record (records are always under the machine key).
    package static func read(path: String, fileProfile: String, machineIDPath: String) throws(TokenStoreError) -> StoredSession? {
        guard
            let bytes = try SecureFileReader.read(
                path: path, limit: TokenFile.maximumByteCount, policy: .ownerOnly, followSymlinks: false,
                tooLarge: { .tooLarge(path: path, size: $0, limit: TokenFile.maximumByteCount) })
        else { return nil }
        let file = try TokenFile.decode(bytes, path: path)
        guard file.keySource == .machine, case let .hkdfSHA256(salt) = file.keyDerivation else { return nil }
        let directory = PrivateFile.folder(of: path)
        guard let material = try KeyMaterial.machineKey(directory: directory, random: nil) else {
            throw .keyUnavailable("machine key \(directory)/\(KeyMaterial.machineKeyFileName) does not exist")
        }
        let key = try KeyMaterial.hkdfFileKey(material: material, salt: salt, machineID: KeyMaterial.machineID(path: machineIDPath))
        return try file.open(fileKey: key, expectedProfile: fileProfile, path: path)
    }

    /// True when the token file at `path` is a registration record (of an earlier release, at
    /// a profile's token-file name): a session store must neither read, replace nor delete it.
    /// False when it is not, or cannot be opened as one.
    package static func holdsRecord(path: String, fileProfile: String, machineIDPath: String) -> Bool {
        guard fileProfile.hasSuffix(".registration"), access(path, F_OK) == 0 else { return false }
        return (try? read(path: path, fileProfile: fileProfile, machineIDPath: machineIDPath))??.registration != nil
    }
}
