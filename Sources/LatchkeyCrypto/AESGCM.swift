internal import CMbedTLS

/// AES-256-GCM with a 96-bit nonce and a 128-bit tag, the only shape Latchkey uses.
public enum AESGCM {
    /// Key length in bytes (AES-256).
    public static let keyByteCount = 32
    /// Nonce length in bytes (96 bits, the GCM fast path).
    public static let nonceByteCount = 12
    /// Tag length in bytes (128 bits).
    public static let tagByteCount = 16

    /// Encrypts `plaintext` and authenticates it together with `aad`.
    /// A nonce must never repeat under one key.
    public static func seal(
        _ plaintext: [UInt8], key: SecretBytes, nonce: [UInt8],
        authenticating aad: [UInt8]
    ) throws(CryptoError) -> (ciphertext: [UInt8], tag: [UInt8]) {
        try checkParameters(key: key, nonce: nonce)
        var ciphertext = [UInt8](repeating: 0, count: plaintext.count)
        var tag = [UInt8](repeating: 0, count: tagByteCount)
        let code: Int32 = try withContext(key: key) { context in
            plaintext.withUnsafeBufferPointer { input in
                nonce.withUnsafeBufferPointer { iv in
                    aad.withUnsafeBufferPointer { additional in
                        ciphertext.withUnsafeMutableBufferPointer { output in
                            tag.withUnsafeMutableBufferPointer { tagOut in
                                mbedtls_gcm_crypt_and_tag(
                                    context, MBEDTLS_GCM_ENCRYPT, input.count,
                                    iv.baseAddress, iv.count,
                                    additional.baseAddress, additional.count,
                                    input.baseAddress, output.baseAddress,
                                    tagOut.count, tagOut.baseAddress)
                            }
                        }
                    }
                }
            }
        }
        try CryptoError.check(code, "mbedtls_gcm_crypt_and_tag")
        return (ciphertext, tag)
    }

    /// Checks `tag` and decrypts. Throws `.authenticationFailed` when anything was altered;
    /// no plaintext is returned in that case.
    public static func open(
        _ ciphertext: [UInt8], tag: [UInt8], key: SecretBytes, nonce: [UInt8],
        authenticating aad: [UInt8]
    ) throws(CryptoError) -> [UInt8] {
        try checkParameters(key: key, nonce: nonce)
        guard tag.count == tagByteCount else {
            throw .invalidInput("AES-GCM tag is \(tag.count) bytes, expected \(tagByteCount)")
        }
        var plaintext = [UInt8](repeating: 0, count: ciphertext.count)
        let code: Int32 = try withContext(key: key) { context in
            ciphertext.withUnsafeBufferPointer { input in
                nonce.withUnsafeBufferPointer { iv in
                    aad.withUnsafeBufferPointer { additional in
                        tag.withUnsafeBufferPointer { tagIn in
                            plaintext.withUnsafeMutableBufferPointer { output in
                                mbedtls_gcm_auth_decrypt(
                                    context, input.count, iv.baseAddress, iv.count,
                                    additional.baseAddress, additional.count,
                                    tagIn.baseAddress, tagIn.count,
                                    input.baseAddress, output.baseAddress)
                            }
                        }
                    }
                }
            }
        }
        if code == MBEDTLS_ERR_GCM_AUTH_FAILED { throw .authenticationFailed }
        try CryptoError.check(code, "mbedtls_gcm_auth_decrypt")
        return plaintext
    }

    private static func checkParameters(key: SecretBytes, nonce: [UInt8]) throws(CryptoError) {
        guard key.count == keyByteCount else {
            throw .invalidKey("AES-GCM key is \(key.count) bytes, expected \(keyByteCount)")
        }
        guard nonce.count == nonceByteCount else {
            throw .invalidInput("AES-GCM nonce is \(nonce.count) bytes, expected \(nonceByteCount)")
        }
    }

    /// A keyed GCM context for the duration of `body`; freeing it zeroes the key schedule.
    private static func withContext(
        key: SecretBytes,
        _ body: (UnsafeMutablePointer<mbedtls_gcm_context>) -> Int32
    ) throws(CryptoError) -> Int32 {
        var context = mbedtls_gcm_context()
        return try withUnsafeMutablePointer(to: &context) { (ctx) throws(CryptoError) -> Int32 in
            mbedtls_gcm_init(ctx)
            defer { mbedtls_gcm_free(ctx) }
            let setKey = key.withUnsafeBytes { raw in
                mbedtls_gcm_setkey(
                    ctx, MBEDTLS_CIPHER_ID_AES, raw.baseAddress?.assumingMemoryBound(to: UInt8.self),
                    UInt32(raw.count * 8))
            }
            try CryptoError.check(setKey, "mbedtls_gcm_setkey")
            return body(ctx)
        }
    }
}
