internal import CMbedTLS

/// PBKDF2 (RFC 8018) with HMAC-SHA-256, for passphrase-protected token files.
package enum PBKDF2 {
    /// Stretches `password` with `salt` over `iterations` rounds into `outputByteCount` bytes.
    package static func deriveKey(
        password: [UInt8], salt: [UInt8], iterations: Int,
        outputByteCount: Int
    ) throws(CryptoError) -> SecretBytes {
        guard iterations > 0, iterations <= Int(UInt32.max) else {
            throw .invalidInput("PBKDF2 iteration count \(iterations) out of range")
        }
        guard outputByteCount > 0, outputByteCount <= Int(UInt32.max) else {
            throw .invalidInput("PBKDF2 output length \(outputByteCount) out of range")
        }
        return try SecretBytes(count: outputByteCount) { (output) throws(CryptoError) in
            let code = password.withUnsafeBufferPointer { p in
                salt.withUnsafeBufferPointer { s in
                    latchkey_pbkdf2_hmac(
                        HashAlgorithm.sha256.mdType, p.baseAddress, p.count, s.baseAddress, s.count,
                        UInt32(iterations), UInt32(output.count),
                        output.baseAddress?.assumingMemoryBound(to: UInt8.self))
                }
            }
            try CryptoError.check(code, "mbedtls_pkcs5_pbkdf2_hmac")
        }
    }
}
