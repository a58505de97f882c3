/// How the token file's AES-256 key is derived from the key material, as recorded in the header.
/// The variant follows from the key source: PBKDF2 for passphrases, HKDF for key files.
package enum TokenFileKeyDerivation: Sendable, Equatable {
    /// HKDF-SHA-256 (RFC 5869) over a key file (`machine`, `credential`, `file:PATH`).
    /// A fresh salt on every write makes every write use a fresh key.
    case hkdfSHA256(salt: [UInt8])
    /// PBKDF2-HMAC-SHA-256 (RFC 8018) over a passphrase.
    case pbkdf2SHA256(iterations: UInt32, salt: [UInt8])

    /// Salt length for both KDFs.
    package static let saltByteCount = 16
    /// The fewest PBKDF2 iterations written or accepted (OWASP 2023 figure for HMAC-SHA-256).
    package static let minimumIterations: UInt32 = 600_000
    /// The most PBKDF2 iterations accepted, so a hostile header cannot stall a reader for minutes.
    package static let maximumIterations: UInt32 = 10_000_000

    /// The salt, whichever the KDF.
    package var salt: [UInt8] {
        switch self {
        case let .hkdfSHA256(salt): return salt
        case let .pbkdf2SHA256(_, salt): return salt
        }
    }

    /// The header bytes of these parameters (docs/token-file.md).
    var encoded: [UInt8] {
        switch self {
        case let .hkdfSHA256(salt):
            return salt
        case let .pbkdf2SHA256(iterations, salt):
            return [
                UInt8(truncatingIfNeeded: iterations >> 24), UInt8(truncatingIfNeeded: iterations >> 16),
                UInt8(truncatingIfNeeded: iterations >> 8), UInt8(truncatingIfNeeded: iterations)
            ] + salt
        }
    }

    /// The number of header bytes the parameters of `kind` occupy.
    static func encodedByteCount(for kind: KeySource.Kind) -> Int {
        kind == .passphrase ? 4 + saltByteCount : saltByteCount
    }
}
