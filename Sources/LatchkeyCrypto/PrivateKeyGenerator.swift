internal import CMbedTLS

/// Makes a new private key on this machine and returns it as unencrypted PEM (SEC1 for EC,
/// PKCS#1 for RSA), the form `SigningKey(pem:random:)` and the key files read. Every buffer that
/// held the key is zeroed before it is released; the PEM itself is `SecretBytes`.
public enum PrivateKeyGenerator {
    /// The kinds of key a device makes for itself.
    public enum Kind: Sendable, Equatable {
        /// A P-256 key (ES256).
        case p256
        /// An RSA key of `bits` bits, exponent 65537 (PS256); at least 2048.
        case rsa(bits: Int)
    }

    /// Generates a key of `kind` from `random`.
    public static func pem(_ kind: Kind, random: some RandomSource) throws(CryptoError) -> SecretBytes {
        let context = UnsafeMutablePointer<mbedtls_pk_context>.allocate(capacity: 1)
        mbedtls_pk_init(context)
        defer {
            mbedtls_pk_free(context)
            context.deallocate()
        }
        let bridge = RandomSourceBridge(random)
        switch kind {
        case .p256:
            try CryptoError.check(mbedtls_pk_setup(context, mbedtls_pk_info_from_type(MBEDTLS_PK_ECKEY)), "mbedtls_pk_setup")
            let code = bridge.withCallback { f, p in
                mbedtls_ecp_gen_key(MBEDTLS_ECP_DP_SECP256R1, mbedtls_pk_ec(context.pointee), f, p)
            }
            try CryptoError.check(code, "mbedtls_ecp_gen_key")
        case .rsa(let bits):
            guard bits >= RSAPublicKey.minimumModulusBitCount, bits <= 4096, bits % 8 == 0 else {
                throw .invalidKey("RSA keys are made with 2048 to 4096 bits, not \(bits)")
            }
            try CryptoError.check(mbedtls_pk_setup(context, mbedtls_pk_info_from_type(MBEDTLS_PK_RSA)), "mbedtls_pk_setup")
            let code = bridge.withCallback { f, p in
                mbedtls_rsa_gen_key(mbedtls_pk_rsa(context.pointee), f, p, UInt32(bits), 65537)
            }
            try CryptoError.check(code, "mbedtls_rsa_gen_key")
        }
        var buffer = [UInt8](repeating: 0, count: 8192)
        defer { buffer.withUnsafeMutableBytes { mbedtls_platform_zeroize($0.baseAddress, $0.count) } }
        let written = buffer.withUnsafeMutableBufferPointer { mbedtls_pk_write_key_pem(context, $0.baseAddress, $0.count) }
        try CryptoError.check(written, "mbedtls_pk_write_key_pem")
        // The PEM text ends with its NUL terminator; it is not part of the file.
        let length = buffer.firstIndex(of: 0) ?? buffer.count
        return try SecretBytes(count: length) { (out) throws(CryptoError) in
            buffer.withUnsafeBytes { out.copyMemory(from: UnsafeRawBufferPointer(rebasing: $0[0..<length])) }
        }
    }
}
