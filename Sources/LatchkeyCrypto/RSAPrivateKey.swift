internal import CMbedTLS

/// An RSA signing key (2048…8192 bits) for RS256/384/512 and PS256/384/512. Made from PEM by
/// `SigningKey(pem:random:)`. The private operation is blinded with the injected random source;
/// concurrent signatures with one key are safe (they take turns on the context).
public struct RSAPrivateKey: Sendable {
    /// The matching public key (its own context: handing it out never keeps private parts alive).
    public let publicKey: RSAPublicKey

    /// The full private context; `mbedtls_rsa_free` zeroes every part when the last copy goes.
    private let storage: RSAPublicKey.Storage
    private let random: any RandomSource

    /// Copies the private context `source` (whose owner frees it) after checking that its parts
    /// belong together and that the modulus is in range.
    init(copying source: UnsafePointer<mbedtls_rsa_context>, random: some RandomSource) throws(CryptoError) {
        let bits = Int(latchkey_rsa_bitlen(source))
        guard bits >= RSAPublicKey.minimumModulusBitCount, bits <= RSAPublicKey.maximumModulusBitCount else {
            throw .privateKeyRefused(
                .rsaModulusSize(
                    bits: bits, minimum: RSAPublicKey.minimumModulusBitCount,
                    maximum: RSAPublicKey.maximumModulusBitCount))
        }
        let check = mbedtls_rsa_check_privkey(source)
        if check != 0 { throw .privateKeyRefused(.inconsistentKey(CryptoError.mbedTLSText(check))) }
        let length = mbedtls_rsa_get_len(source)
        var n = [UInt8](repeating: 0, count: length), e = [UInt8](repeating: 0, count: length)
        let exported = n.withUnsafeMutableBufferPointer { nb in
            e.withUnsafeMutableBufferPointer { eb in
                mbedtls_rsa_export_raw(source, nb.baseAddress, nb.count, nil, 0, nil, 0, nil, 0, eb.baseAddress, eb.count)
            }
        }
        try CryptoError.check(exported, "mbedtls_rsa_export_raw")
        publicKey = try RSAPublicKey(modulus: n, exponent: e)
        let storage = RSAPublicKey.Storage()
        try storage.withContext { (ctx) throws(CryptoError) in
            try CryptoError.check(mbedtls_rsa_copy(ctx, source), "mbedtls_rsa_copy")
        }
        self.storage = storage
        self.random = random
    }

    /// RSASSA-PKCS1-v1_5 (RFC 8017 §8.2) over `hash` of `message`; `publicKey.modulusByteCount` bytes.
    public func pkcs1v15Signature(for message: [UInt8], hash: HashAlgorithm) throws(CryptoError) -> [UInt8] {
        try sign(hash.hash(message), hash: hash, padding: MBEDTLS_RSA_PKCS_V15)
    }

    /// RSASSA-PSS (RFC 8017 §8.1) over `hash` of `message`, with MGF1 over the same hash and a
    /// salt as long as the hash (the JWS PS* shape, RFC 7518 §3.5).
    public func pssSignature(for message: [UInt8], hash: HashAlgorithm) throws(CryptoError) -> [UInt8] {
        try sign(hash.hash(message), hash: hash, padding: MBEDTLS_RSA_PKCS_V21)
    }

    private func sign(_ digest: [UInt8], hash: HashAlgorithm, padding: Int32) throws(CryptoError) -> [UInt8] {
        var signature = [UInt8](repeating: 0, count: publicKey.modulusByteCount)
        let bridge = RandomSourceBridge(random)
        let code = storage.withContext { ctx in
            // The padding mode (and, for PSS, the MGF1 hash) live in the context; set per call.
            let padded = latchkey_rsa_set_padding(ctx, padding, hash.mdType)
            guard padded == 0 else { return padded }
            return bridge.withCallback { f, p in
                digest.withUnsafeBufferPointer { d in
                    signature.withUnsafeMutableBufferPointer { s in
                        padding == MBEDTLS_RSA_PKCS_V21
                            ? mbedtls_rsa_rsassa_pss_sign_ext(
                                ctx, f, p, hash.mdType, UInt32(d.count), d.baseAddress,
                                Int32(hash.byteCount), s.baseAddress)
                            : latchkey_rsa_pkcs1_v15_sign(
                                ctx, f, p, hash.mdType,
                                UInt32(d.count), d.baseAddress, s.baseAddress)
                    }
                }
            }
        }
        try CryptoError.check(
            code, padding == MBEDTLS_RSA_PKCS_V21 ? "mbedtls_rsa_rsassa_pss_sign_ext" : "mbedtls_rsa_rsassa_pkcs1_v15_sign")
        return signature
    }
}
