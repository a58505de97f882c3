import Glibc
import LatchkeyCrypto

/// The encrypted token file, as bytes: a versioned header followed by the AES-256-GCM sealed
/// JSON of a `StoredSession`. Pure encode/decode, no I/O, so it can be fuzzed (Fuzz/FuzzTokenFile).
/// The layout is documented byte by byte in docs/token-file.md.
///
/// The header names the profile so a file copied under another profile's name is reported as
/// such; the AAD is the header followed by the profile name the *reader* expects, so a reader
/// that skipped that check would still fail authentication.
package struct TokenFile: Sendable, Equatable {
    /// The first four bytes of every token file.
    package static let magic: [UInt8] = Array("LKTF".utf8)
    /// The format version this build writes and the newest it reads.
    package static let currentVersion: UInt8 = 1
    /// No token file this build writes comes near this; larger files are refused unread.
    package static let maximumByteCount = 1 << 20
    /// AES-GCM nonce length (96 bits, random per write).
    package static let nonceByteCount = 12
    /// AES-GCM tag length.
    package static let tagByteCount = 16
    /// AES key length (AES-256).
    package static let keyByteCount = 32
    /// Longest profile name the header can carry.
    package static let maximumProfileByteCount = 255

    /// Which key source encrypted the file.
    package var keySource: KeySource.Kind
    /// The profile the file belongs to.
    package var profile: String
    /// The KDF and its parameters that turn the key material into the file key.
    package var keyDerivation: TokenFileKeyDerivation
    /// The 96-bit GCM nonce.
    package var nonce: [UInt8]
    /// The encrypted payload (same length as the JSON plaintext).
    package var ciphertext: [UInt8]
    /// The 128-bit GCM tag.
    package var tag: [UInt8]

    /// Makes a file value from its parts (normally use `seal` or `decode`).
    package init(
        keySource: KeySource.Kind, profile: String, keyDerivation: TokenFileKeyDerivation,
        nonce: [UInt8], ciphertext: [UInt8], tag: [UInt8]
    ) {
        self.keySource = keySource
        self.profile = profile
        self.keyDerivation = keyDerivation
        self.nonce = nonce
        self.ciphertext = ciphertext
        self.tag = tag
    }

    /// The header: every byte before the ciphertext (its last field is the ciphertext length,
    /// so set `ciphertext` before asking for the header of a finished file).
    package var header: [UInt8] {
        let name = Array(profile.utf8)
        var bytes = Self.magic
        bytes.reserveCapacity(4 + 3 + name.count + 20 + Self.nonceByteCount + 4)
        bytes.append(Self.currentVersion)
        bytes.append(keySource.rawValue)
        bytes.append(UInt8(truncatingIfNeeded: name.count))
        bytes += name
        bytes += keyDerivation.encoded
        bytes += nonce
        // The ciphertext length lets a cut-off file be reported as truncated, not as tampered.
        let length = UInt32(truncatingIfNeeded: ciphertext.count)
        bytes += [
            UInt8(truncatingIfNeeded: length >> 24), UInt8(truncatingIfNeeded: length >> 16),
            UInt8(truncatingIfNeeded: length >> 8), UInt8(truncatingIfNeeded: length)
        ]
        return bytes
    }

    /// The whole file.
    package func encoded() -> [UInt8] { header + ciphertext + tag }

    /// The additional authenticated data: the header, then the profile name the reader expects.
    package static func additionalData(header: [UInt8], expectedProfile: String) -> [UInt8] {
        header + Array(expectedProfile.utf8)
    }

    // MARK: - Decoding

    /// Parses the container without decrypting. Checks, in order: size, magic, version (a newer
    /// one is refused before anything else is read), key source, profile name, KDF parameters,
    /// and that nonce and tag fit. `path` only labels the errors.
    package static func decode(_ bytes: [UInt8], path: String) throws(TokenStoreError) -> TokenFile {
        guard bytes.count <= maximumByteCount else {
            throw .tooLarge(path: path, size: bytes.count, limit: maximumByteCount)
        }
        var reader = ByteReader(bytes: bytes)
        guard let magicBytes = reader.take(magic.count) else {
            // A prefix of the magic is a cut-off token file; anything else is not ours.
            if !bytes.isEmpty, Array(magic.prefix(bytes.count)) == bytes { throw .truncated(path: path) }
            if bytes.isEmpty { throw .truncated(path: path) }
            throw .corrupt(path: path, reason: "not a latchkey token file (bad magic)")
        }
        guard magicBytes == magic else {
            throw .corrupt(path: path, reason: "not a latchkey token file (bad magic)")
        }
        guard let version = reader.takeByte() else { throw .truncated(path: path) }
        guard version != 0 else { throw .corrupt(path: path, reason: "format version 0 does not exist") }
        guard version <= currentVersion else {
            throw .unsupportedVersion(path: path, found: version, supported: currentVersion)
        }
        guard let kindByte = reader.takeByte() else { throw .truncated(path: path) }
        guard let kind = KeySource.Kind(rawValue: kindByte) else {
            throw .corrupt(path: path, reason: "unknown key source id \(kindByte)")
        }
        guard let nameLength = reader.takeByte() else { throw .truncated(path: path) }
        guard nameLength > 0 else { throw .corrupt(path: path, reason: "empty profile name") }
        guard let nameBytes = reader.take(Int(nameLength)) else { throw .truncated(path: path) }
        guard let profile = String(validating: nameBytes, as: UTF8.self) else {
            throw .corrupt(path: path, reason: "profile name is not UTF-8")
        }
        let derivation: TokenFileKeyDerivation
        if kind == .passphrase {
            guard let iterationBytes = reader.take(4) else { throw .truncated(path: path) }
            let iterations = iterationBytes.reduce(UInt32(0)) { $0 << 8 | UInt32($1) }
            guard iterations >= TokenFileKeyDerivation.minimumIterations,
                iterations <= TokenFileKeyDerivation.maximumIterations
            else {
                throw .corrupt(
                    path: path,
                    reason: "PBKDF2 iteration count \(iterations) is outside "
                        + "\(TokenFileKeyDerivation.minimumIterations)...\(TokenFileKeyDerivation.maximumIterations)")
            }
            guard let salt = reader.take(TokenFileKeyDerivation.saltByteCount) else { throw .truncated(path: path) }
            derivation = .pbkdf2SHA256(iterations: iterations, salt: salt)
        } else {
            guard let salt = reader.take(TokenFileKeyDerivation.saltByteCount) else { throw .truncated(path: path) }
            derivation = .hkdfSHA256(salt: salt)
        }
        guard let nonce = reader.take(nonceByteCount) else { throw .truncated(path: path) }
        guard let lengthBytes = reader.take(4) else { throw .truncated(path: path) }
        let length = Int(lengthBytes.reduce(UInt32(0)) { $0 << 8 | UInt32($1) })
        // The payload is a JSON object, never empty.
        guard length > 0 else { throw .corrupt(path: path, reason: "empty payload") }
        guard length <= maximumByteCount else {
            throw .corrupt(path: path, reason: "payload length \(length) exceeds the \(maximumByteCount)-byte limit")
        }
        guard reader.remaining >= length + tagByteCount else { throw .truncated(path: path) }
        guard reader.remaining == length + tagByteCount else {
            throw .corrupt(path: path, reason: "\(reader.remaining - length - tagByteCount) bytes after the tag")
        }
        let ciphertext = reader.take(length)!
        let tag = reader.take(tagByteCount)!
        return TokenFile(
            keySource: kind, profile: profile, keyDerivation: derivation,
            nonce: nonce, ciphertext: ciphertext, tag: tag)
    }

    /// Decrypts and decodes the session. Checks the profile named in the header and, after
    /// authentication, the one in the payload. `path` only labels the errors.
    package func open(fileKey: SecretBytes, expectedProfile: String, path: String) throws(TokenStoreError) -> StoredSession {
        guard profile == expectedProfile else {
            throw .profileMismatch(path: path, expected: expectedProfile, found: profile)
        }
        var plaintext: [UInt8]
        do {
            plaintext = try AESGCM.open(
                ciphertext, tag: tag, key: fileKey, nonce: nonce,
                authenticating: Self.additionalData(header: header, expectedProfile: expectedProfile))
        } catch {
            // Any failure to open (tag mismatch above all) means the key or the bytes are wrong.
            throw .wrongKeyOrTampered(path: path)
        }
        defer { plaintext.withUnsafeMutableBytes { Self.zeroize($0) } }
        let session: StoredSession
        do {
            session = try StoredSessionPayload.decode(plaintext)
        } catch {
            throw .corrupt(path: path, reason: "authenticated payload is not a session")
        }
        guard session.profile == expectedProfile else {
            throw .profileMismatch(path: path, expected: expectedProfile, found: session.profile)
        }
        return session
    }

    // MARK: - Encoding

    /// Encrypts `session` under `fileKey`. The caller supplies the KDF parameters it used to make
    /// `fileKey` and a fresh random nonce. `path` only labels the errors.
    /// At least the size of `session`'s token file: its payload, the GCM tag and room for the
    /// largest header (the profile name, the key derivation), without sealing it (no key needed).
    static func sealedSizeBound(_ session: StoredSession) -> Int {
        var plaintext = StoredSessionPayload.encode(session)
        defer { plaintext.withUnsafeMutableBytes { Self.zeroize($0) } }
        return plaintext.count + tagByteCount + 1024
    }

    package static func seal(
        _ session: StoredSession, keySource: KeySource.Kind, keyDerivation: TokenFileKeyDerivation,
        nonce: [UInt8], fileKey: SecretBytes, path: String = "token file"
    ) throws(TokenStoreError) -> TokenFile {
        let profile = session.profile
        guard !profile.isEmpty, profile.utf8.count <= maximumProfileByteCount else {
            throw .invalidProfileName(profile)
        }
        var plaintext = StoredSessionPayload.encode(session)
        defer { plaintext.withUnsafeMutableBytes { Self.zeroize($0) } }
        guard plaintext.count <= maximumByteCount - 1024 else {
            throw .tooLarge(path: path, size: plaintext.count, limit: maximumByteCount - 1024)
        }
        // GCM ciphertext is as long as the plaintext; the header (and so the AAD) records that length.
        var file = TokenFile(
            keySource: keySource, profile: profile, keyDerivation: keyDerivation,
            nonce: nonce, ciphertext: [UInt8](repeating: 0, count: plaintext.count), tag: [])
        let sealed: (ciphertext: [UInt8], tag: [UInt8])
        do {
            sealed = try AESGCM.seal(
                plaintext, key: fileKey, nonce: nonce,
                authenticating: additionalData(header: file.header, expectedProfile: profile))
        } catch {
            throw .keyUnavailable("encryption failed: \(error)")
        }
        guard sealed.ciphertext.count == plaintext.count, sealed.tag.count == tagByteCount else {
            throw .keyUnavailable("encryption returned \(sealed.ciphertext.count)+\(sealed.tag.count) bytes for \(plaintext.count)")
        }
        file.ciphertext = sealed.ciphertext
        file.tag = sealed.tag
        return file
    }
}

extension TokenFile {
    /// Overwrites a buffer that held secret bytes; `explicit_bzero` is never elided as a dead store.
    package static func zeroize(_ buffer: UnsafeMutableRawBufferPointer) {
        guard let base = buffer.baseAddress, buffer.count > 0 else { return }
        explicit_bzero(base, buffer.count)
    }

    /// Sequential reads from a byte array that return nil instead of running past the end.
    struct ByteReader {
        let bytes: [UInt8]
        private(set) var offset = 0

        init(bytes: [UInt8]) { self.bytes = bytes }

        var remaining: Int { bytes.count - offset }

        mutating func takeByte() -> UInt8? {
            guard offset < bytes.count else { return nil }
            defer { offset += 1 }
            return bytes[offset]
        }

        mutating func take(_ count: Int) -> [UInt8]? {
            guard count >= 0, count <= remaining else { return nil }
            defer { offset += count }
            return Array(bytes[offset..<offset + count])
        }
    }
}
