internal import CMbedTLS

/// HKDF (RFC 5869) with HMAC-SHA-256.
package enum HKDF {
    /// Extract-then-expand: `outputByteCount` bytes (1…8160) bound to `salt` and `info`.
    package static func deriveKey(
        inputKeyMaterial: SecretBytes, salt: [UInt8], info: [UInt8],
        outputByteCount: Int
    ) throws(CryptoError) -> SecretBytes {
        guard outputByteCount > 0, outputByteCount <= 255 * HashAlgorithm.sha256.byteCount else {
            throw .invalidInput("HKDF-SHA-256 output length \(outputByteCount) not in 1...8160")
        }
        return try SecretBytes(count: outputByteCount) { (okm) throws(CryptoError) in
            let code = inputKeyMaterial.withUnsafeBytes { ikm in
                salt.withUnsafeBufferPointer { s in
                    info.withUnsafeBufferPointer { i in
                        mbedtls_hkdf(
                            HashAlgorithm.sha256.mdInfo, s.baseAddress, s.count,
                            ikm.baseAddress?.assumingMemoryBound(to: UInt8.self), ikm.count,
                            i.baseAddress, i.count,
                            okm.baseAddress?.assumingMemoryBound(to: UInt8.self), okm.count)
                    }
                }
            }
            try CryptoError.check(code, "mbedtls_hkdf")
        }
    }
}
