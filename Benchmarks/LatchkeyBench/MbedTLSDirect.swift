import CMbedTLS
import LatchkeyCrypto

/// Direct mbedTLS calls, without LatchkeyCrypto, as the baseline every wrapper is compared to.
/// Also generates the benchmark keys, so the bench needs no files.
final class MbedTLSDirect {
    let entropy = UnsafeMutablePointer<mbedtls_entropy_context>.allocate(capacity: 1)
    let drbg = UnsafeMutablePointer<mbedtls_ctr_drbg_context>.allocate(capacity: 1)

    init() {
        mbedtls_entropy_init(entropy)
        mbedtls_ctr_drbg_init(drbg)
        Self.check(mbedtls_ctr_drbg_seed(drbg, mbedtls_entropy_func, entropy, nil, 0), "mbedtls_ctr_drbg_seed")
    }

    deinit {
        mbedtls_ctr_drbg_free(drbg)
        mbedtls_entropy_free(entropy)
        drbg.deallocate()
        entropy.deallocate()
    }

    static func check(_ code: Int32, _ what: String) {
        precondition(code == 0, "\(what) failed: \(code)")
    }

    /// An RSA private key made with mbedtls_rsa_gen_key (e = 65537).
    final class RSAKey {
        let context = UnsafeMutablePointer<mbedtls_rsa_context>.allocate(capacity: 1)
        init(bits: UInt32, using direct: MbedTLSDirect) {
            latchkey_rsa_init(context)
            MbedTLSDirect.check(mbedtls_rsa_gen_key(context, mbedtls_ctr_drbg_random, direct.drbg, bits, 65537), "mbedtls_rsa_gen_key")
        }
        deinit { mbedtls_rsa_free(context); context.deallocate() }

        var modulus: [UInt8] { raw(nIndex: true) }
        var exponent: [UInt8] { raw(nIndex: false) }

        private func raw(nIndex: Bool) -> [UInt8] {
            var out = [UInt8](repeating: 0, count: nIndex ? mbedtls_rsa_get_len(context) : 3)
            let code = out.withUnsafeMutableBufferPointer { b in
                nIndex
                    ? mbedtls_rsa_export_raw(context, b.baseAddress, b.count, nil, 0, nil, 0, nil, 0, nil, 0)
                    : mbedtls_rsa_export_raw(context, nil, 0, nil, 0, nil, 0, nil, 0, b.baseAddress, b.count)
            }
            MbedTLSDirect.check(code, "mbedtls_rsa_export_raw")
            return out
        }

        /// PKCS#1 v1.5 signature over SHA-256(message).
        func signPKCS1v15SHA256(_ message: [UInt8], using direct: MbedTLSDirect) -> [UInt8] {
            let digest = HashAlgorithm.sha256.hash(message)
            var signature = [UInt8](repeating: 0, count: mbedtls_rsa_get_len(context))
            let code = signature.withUnsafeMutableBufferPointer { s in
                latchkey_rsa_pkcs1_v15_sign(
                    context, mbedtls_ctr_drbg_random, direct.drbg,
                    MBEDTLS_MD_SHA256, 32, digest, s.baseAddress)
            }
            MbedTLSDirect.check(code, "mbedtls_rsa_rsassa_pkcs1_v15_sign")
            return signature
        }
    }

    /// A public-only RSA context, parsed once, verified against directly.
    final class RSAVerifier {
        let context = UnsafeMutablePointer<mbedtls_rsa_context>.allocate(capacity: 1)
        init(modulus: [UInt8], exponent: [UInt8]) {
            latchkey_rsa_init(context)
            MbedTLSDirect.check(
                mbedtls_rsa_import_raw(
                    context, modulus, modulus.count, nil, 0, nil, 0, nil, 0,
                    exponent, exponent.count), "mbedtls_rsa_import_raw")
            MbedTLSDirect.check(mbedtls_rsa_complete(context), "mbedtls_rsa_complete")
        }
        deinit { mbedtls_rsa_free(context); context.deallocate() }

        /// SHA-256 of the message, then PKCS#1 v1.5 verify: the same work an RS256 check does.
        func verifyPKCS1v15SHA256(_ signature: [UInt8], message: [UInt8]) -> Bool {
            var digest = [UInt8](repeating: 0, count: 32)
            _ = latchkey_sha256(message, message.count, &digest)
            return latchkey_rsa_pkcs1_v15_verify(context, MBEDTLS_MD_SHA256, 32, digest, signature) == 0
        }
    }

    /// A P-256 public key parsed once; ECDSA verify straight through mbedtls_ecdsa_verify.
    final class P256Verifier {
        let keyPair = UnsafeMutablePointer<mbedtls_ecp_keypair>.allocate(capacity: 1)
        init(x: [UInt8], y: [UInt8]) {
            mbedtls_ecp_keypair_init(keyPair)
            MbedTLSDirect.check(mbedtls_ecp_group_load(latchkey_ecp_grp(keyPair), MBEDTLS_ECP_DP_SECP256R1), "mbedtls_ecp_group_load")
            let encoded = [0x04] + x + y
            MbedTLSDirect.check(
                mbedtls_ecp_point_read_binary(latchkey_ecp_grp(keyPair), latchkey_ecp_Q(keyPair), encoded, encoded.count),
                "mbedtls_ecp_point_read_binary")
        }
        deinit { mbedtls_ecp_keypair_free(keyPair); keyPair.deallocate() }

        /// SHA-256, r and s from raw r‖s, then mbedtls_ecdsa_verify: the same work an ES256 check does.
        func verifySHA256(rawRS signature: [UInt8], message: [UInt8]) -> Bool {
            var digest = [UInt8](repeating: 0, count: 32)
            _ = latchkey_sha256(message, message.count, &digest)
            var r = mbedtls_mpi(), s = mbedtls_mpi()
            mbedtls_mpi_init(&r); mbedtls_mpi_init(&s)
            defer { mbedtls_mpi_free(&r); mbedtls_mpi_free(&s) }
            guard signature.count == 64 else { return false }
            signature.withUnsafeBufferPointer { b in
                _ = mbedtls_mpi_read_binary(&r, b.baseAddress, 32)
                _ = mbedtls_mpi_read_binary(&s, b.baseAddress! + 32, 32)
            }
            return mbedtls_ecdsa_verify(latchkey_ecp_grp(keyPair), digest, 32, latchkey_ecp_Q(keyPair), &r, &s) == 0
        }
    }

    /// A P-256 private key (for the direct signing baseline).
    final class P256Signer {
        let keyPair = UnsafeMutablePointer<mbedtls_ecp_keypair>.allocate(capacity: 1)
        init(using direct: MbedTLSDirect) {
            mbedtls_ecp_keypair_init(keyPair)
            MbedTLSDirect.check(
                mbedtls_ecp_gen_key(MBEDTLS_ECP_DP_SECP256R1, keyPair, mbedtls_ctr_drbg_random, direct.drbg),
                "mbedtls_ecp_gen_key")
        }
        deinit { mbedtls_ecp_keypair_free(keyPair); keyPair.deallocate() }

        /// SHA-256 then deterministic ECDSA (RFC 6979), r and s written out as 64 raw bytes.
        func signSHA256(_ message: [UInt8], using direct: MbedTLSDirect) -> [UInt8] {
            var digest = [UInt8](repeating: 0, count: 32)
            _ = latchkey_sha256(message, message.count, &digest)
            var r = mbedtls_mpi(), s = mbedtls_mpi()
            mbedtls_mpi_init(&r); mbedtls_mpi_init(&s)
            defer { mbedtls_mpi_free(&r); mbedtls_mpi_free(&s) }
            MbedTLSDirect.check(
                mbedtls_ecdsa_sign_det_ext(
                    latchkey_ecp_grp(keyPair), &r, &s, latchkey_ecp_d(keyPair), digest, 32,
                    MBEDTLS_MD_SHA256, mbedtls_ctr_drbg_random, direct.drbg),
                "mbedtls_ecdsa_sign_det_ext")
            var out = [UInt8](repeating: 0, count: 64)
            out.withUnsafeMutableBufferPointer { b in
                _ = mbedtls_mpi_write_binary(&r, b.baseAddress, 32)
                _ = mbedtls_mpi_write_binary(&s, b.baseAddress! + 32, 32)
            }
            return out
        }
    }

    /// AES-256-GCM with the key schedule set once (LatchkeyCrypto sets it per call).
    final class GCM {
        let context = UnsafeMutablePointer<mbedtls_gcm_context>.allocate(capacity: 1)
        init(key: [UInt8]) {
            mbedtls_gcm_init(context)
            MbedTLSDirect.check(mbedtls_gcm_setkey(context, MBEDTLS_CIPHER_ID_AES, key, UInt32(key.count * 8)), "mbedtls_gcm_setkey")
        }
        deinit { mbedtls_gcm_free(context); context.deallocate() }

        func seal(_ input: [UInt8], into output: inout [UInt8], nonce: [UInt8], tag: inout [UInt8]) -> Bool {
            mbedtls_gcm_crypt_and_tag(
                context, MBEDTLS_GCM_ENCRYPT, input.count, nonce, nonce.count, nil, 0,
                input, &output, tag.count, &tag) == 0
        }
    }
}
