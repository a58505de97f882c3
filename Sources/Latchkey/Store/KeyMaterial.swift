import Glibc
import LatchkeyCrypto
import LatchkeyHTTP

/// Loads the secret a `KeySource` names and turns it into the AES-256 file key.
package enum KeyMaterial {
    /// The shortest key file accepted: 256 bits.
    static let minimumKeyFileByteCount = 32
    /// Key files are small; anything larger is not a key.
    static let maximumKeyFileByteCount = 64 * 1024
    /// HKDF `info` prefix; `/etc/machine-id` is appended for the machine key.
    static let hkdfInfoPrefix = "latchkey token file v1"
    /// File name of the machine key in the state directory.
    package static let machineKeyFileName = "machine.key"
    /// File name of the key in `$CREDENTIALS_DIRECTORY`.
    static let credentialFileName = "latchkey.key"

    /// Reads a key file after the ownership/mode checks; nil when it does not exist.
    static func readKeyFile(path: String, policy: FileOwnershipPolicy, followSymlinks: Bool) throws(TokenStoreError) -> SecretBytes? {
        guard
            var bytes = try SecureFileReader.read(
                path: path, limit: maximumKeyFileByteCount, policy: policy, followSymlinks: followSymlinks,
                tooLarge: { .keyUnavailable("key file \(path) is \($0) bytes; a key file is at most \(maximumKeyFileByteCount)") })
        else { return nil }
        defer { bytes.withUnsafeMutableBytes { TokenFile.zeroize($0) } }
        guard bytes.count >= minimumKeyFileByteCount else {
            throw .keyUnavailable("key file \(path) has \(bytes.count) bytes; at least \(minimumKeyFileByteCount) are required")
        }
        return SecretBytes(bytes)
    }

    /// The machine key in `directory`, made from 32 random bytes when it is missing and `random`
    /// is given (writes only: a read never creates a key).
    /// Creation publishes a complete file with `link(2)`, which fails if another process won the
    /// race; then that process's key is used.
    package static func machineKey(directory: String, random: (any RandomSource)?) throws(TokenStoreError) -> SecretBytes? {
        let path = directory + "/" + machineKeyFileName
        if let key = try readKeyFile(path: path, policy: .ownerOnly, followSymlinks: false) { return key }
        guard let random else { return nil }
        let temporary = directory + "/" + AtomicFileWriter.temporaryPrefix(for: machineKeyFileName) + AtomicFileWriter.hex(random.bytes(8))
        let fd = InterruptRetry.call { open(temporary, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0o600) }
        guard fd >= 0 else { throw .io(path: path, operation: "create", errno: errno) }
        defer { unlink(temporary) }
        do {
            defer { close(fd) }
            var fresh = random.bytes(minimumKeyFileByteCount)
            defer { fresh.withUnsafeMutableBytes { TokenFile.zeroize($0) } }
            guard fresh.count == minimumKeyFileByteCount else {
                throw TokenStoreError.keyUnavailable("the random source returned \(fresh.count) bytes")
            }
            guard fchmod(fd, 0o600) == 0 else { throw TokenStoreError.io(path: path, operation: "chmod", errno: errno) }
            try AtomicFileWriter.writeAll(fresh, fd: fd, path: path)
            guard InterruptRetry.call({ fsync(fd) }) == 0 else { throw TokenStoreError.io(path: path, operation: "write", errno: errno) }
        }
        if link(temporary, path) != 0 && errno != EEXIST {
            throw .io(path: path, operation: "create", errno: errno)
        }
        try AtomicFileWriter.syncDirectory(directory)
        guard let key = try readKeyFile(path: path, policy: .ownerOnly, followSymlinks: false) else {
            throw .keyUnavailable("machine key \(path) vanished while it was being created")
        }
        return key
    }

    /// The `/etc/machine-id` text without surrounding whitespace, or an empty array when the file
    /// is absent or unreadable (containers often lack it); then the binding is simply absent.
    package static func machineID(path: String) -> [UInt8] {
        let fd = InterruptRetry.call { open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK) }
        guard fd >= 0 else { return [] }
        defer { close(fd) }
        guard
            let bytes = try? SecureFileReader.readAll(
                fd: fd, path: path, limit: 4096,
                tooLarge: { _ in .keyUnavailable("machine-id too large") })
        else { return [] }
        let isSpace: (UInt8) -> Bool = CharacterClass.isWhitespace
        guard let first = bytes.firstIndex(where: { !isSpace($0) }),
            let last = bytes.lastIndex(where: { !isSpace($0) })
        else { return [] }
        return Array(bytes[first...last])
    }

    /// HKDF-SHA-256(key file, salt from the header, info = prefix ‖ machine-id) → 32-byte key.
    package static func hkdfFileKey(material: SecretBytes, salt: [UInt8], machineID: [UInt8]) throws(TokenStoreError) -> SecretBytes {
        do {
            return try HKDF.deriveKey(
                inputKeyMaterial: material, salt: salt,
                info: Array(hkdfInfoPrefix.utf8) + machineID,
                outputByteCount: TokenFile.keyByteCount)
        } catch {
            throw .keyUnavailable("HKDF failed: \(error)")
        }
    }

    /// PBKDF2-HMAC-SHA-256(passphrase, salt, iterations) → 32-byte key.
    static func pbkdf2FileKey(passphrase: SecretBytes, salt: [UInt8], iterations: UInt32) throws(TokenStoreError) -> SecretBytes {
        var password = passphrase.bytes
        defer { password.withUnsafeMutableBytes { TokenFile.zeroize($0) } }
        do {
            return try PBKDF2.deriveKey(
                password: password, salt: salt, iterations: Int(iterations),
                outputByteCount: TokenFile.keyByteCount)
        } catch {
            throw .keyUnavailable("PBKDF2 failed: \(error)")
        }
    }
}
