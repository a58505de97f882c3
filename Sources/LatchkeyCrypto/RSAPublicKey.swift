internal import CMbedTLS
import Synchronization

/// An RSA public key (2048…8192 bits) for verifying RS256/384/512 and PS256/384/512.
/// The key is parsed once; concurrent verifies with one key are safe.
public struct RSAPublicKey: Sendable, Equatable {
    /// Owns the `mbedtls_rsa_context`. The lock guards the cached Montgomery constant
    /// mbedtls_rsa_public computes on first use (mbedTLS also locks when built with threading).
    final class Storage: @unchecked Sendable {
        // @unchecked: the context is only touched inside `withContext`, under `lock`.
        private let context: UnsafeMutablePointer<mbedtls_rsa_context>
        private let lock = Mutex(())

        init() {
            context = .allocate(capacity: 1)
            latchkey_rsa_init(context)
        }

        deinit {
            mbedtls_rsa_free(context)
            context.deallocate()
        }

        func withContext<R, E: Error>(_ body: (UnsafeMutablePointer<mbedtls_rsa_context>) throws(E) -> R) throws(E) -> R {
            let result: Result<R, E> = lock.withLock { _ in
                do throws(E) { return .success(try body(context)) } catch { return .failure(error) }
            }
            return try result.get()
        }
    }

    /// Smallest modulus accepted (NIST SP 800-131A; RFC 7518 §3.3 requires ≥ 2048 for RS*).
    public static let minimumModulusBitCount = 2048
    /// Largest modulus mbedTLS handles (MBEDTLS_MPI_MAX_BITS, 8192 in 2.28 and 3.6).
    public static let maximumModulusBitCount = 8192

    /// Size of the modulus n in bits.
    public let modulusBitCount: Int
    /// Size of n in bytes: every signature must be exactly this long.
    public let modulusByteCount: Int
    /// The modulus n, big-endian, without leading zero bytes.
    public let modulus: [UInt8]
    /// The public exponent e, big-endian, without leading zero bytes.
    public let exponent: [UInt8]

    let storage: Storage

    /// A key from the big-endian modulus n and public exponent e (as in JWK `n`/`e`).
    /// Leading zero bytes are ignored. Rejects n < 2048 bits, n > 8192 bits, even n,
    /// and e that is even, below 3 or not below n.
    public init(modulus: [UInt8], exponent: [UInt8]) throws(CryptoError) {
        let n = Self.strippingLeadingZeros(modulus)
        let e = Self.strippingLeadingZeros(exponent)
        guard let nFirst = n.first, let nLast = n.last else { throw .invalidKey("RSA modulus is zero") }
        let bits = (n.count - 1) * 8 + (8 - nFirst.leadingZeroBitCount)
        guard bits >= Self.minimumModulusBitCount else {
            throw .invalidKey("RSA modulus \(bits) bits < \(Self.minimumModulusBitCount)")
        }
        guard bits <= Self.maximumModulusBitCount else {
            throw .invalidKey("RSA modulus \(bits) bits > \(Self.maximumModulusBitCount)")
        }
        guard nLast & 1 == 1 else { throw .invalidKey("RSA modulus is even") }
        guard let eLast = e.last else { throw .invalidKey("RSA exponent is zero") }
        guard eLast & 1 == 1 else { throw .invalidKey("RSA exponent is even") }
        guard e.count > 1 || eLast >= 3 else { throw .invalidKey("RSA exponent \(eLast) < 3") }
        guard e.count <= n.count else { throw .invalidKey("RSA exponent is not below the modulus") }

        let storage = Storage()
        try storage.withContext { (ctx) throws(CryptoError) in
            let imported = n.withUnsafeBufferPointer { nb in
                e.withUnsafeBufferPointer { eb in
                    mbedtls_rsa_import_raw(ctx, nb.baseAddress, nb.count, nil, 0, nil, 0, nil, 0, eb.baseAddress, eb.count)
                }
            }
            try CryptoError.check(imported, "mbedtls_rsa_import_raw")
            try CryptoError.check(mbedtls_rsa_complete(ctx), "mbedtls_rsa_complete")
            let check = mbedtls_rsa_check_pubkey(ctx)
            if check != 0 { throw .invalidKey("RSA public key rejected: \(CryptoError.mbedTLSText(check))") }
        }
        self.storage = storage
        self.modulusBitCount = bits
        self.modulusByteCount = n.count
        self.modulus = n
        self.exponent = e
    }

    /// Keys are equal when n and e are (public values, so no constant-time need).
    public static func == (lhs: RSAPublicKey, rhs: RSAPublicKey) -> Bool {
        lhs.modulus == rhs.modulus && lhs.exponent == rhs.exponent
    }

    /// True when `signature` is a valid RSASSA-PKCS1-v1_5 signature (RFC 8017 §8.2) of `message`.
    public func isValidPKCS1v15Signature(_ signature: [UInt8], for message: [UInt8], hash: HashAlgorithm) -> Bool {
        isValidPKCS1v15Signature(signature, digest: hash.hash(message), hash: hash)
    }

    /// As `isValidPKCS1v15Signature(_:for:hash:)`, for a digest computed by the caller.
    public func isValidPKCS1v15Signature(_ signature: [UInt8], digest: [UInt8], hash: HashAlgorithm) -> Bool {
        // mbedTLS reads exactly ctx->len bytes; a shorter or longer signature is invalid (RFC 8017 §8.2.2 step 1).
        guard signature.count == modulusByteCount, digest.count == hash.byteCount else { return false }
        return storage.withContext { ctx in
            digest.withUnsafeBufferPointer { d in
                signature.withUnsafeBufferPointer { s in
                    // mbedTLS re-encodes the expected DigestInfo and compares, so non-canonical encodings fail.
                    latchkey_rsa_pkcs1_v15_verify(
                        ctx, hash.mdType,
                        UInt32(d.count), d.baseAddress, s.baseAddress) == 0
                }
            }
        }
    }

    /// True when `signature` is a valid RSASSA-PSS signature (RFC 8017 §8.1) of `message`
    /// with MGF1 over the same hash and a salt exactly as long as the hash (the JWS PS* shape).
    public func isValidPSSSignature(_ signature: [UInt8], for message: [UInt8], hash: HashAlgorithm) -> Bool {
        isValidPSSSignature(signature, digest: hash.hash(message), hash: hash)
    }

    /// As `isValidPSSSignature(_:for:hash:)`, for a digest computed by the caller.
    public func isValidPSSSignature(_ signature: [UInt8], digest: [UInt8], hash: HashAlgorithm) -> Bool {
        guard signature.count == modulusByteCount, digest.count == hash.byteCount else { return false }
        return storage.withContext { ctx in
            digest.withUnsafeBufferPointer { d in
                signature.withUnsafeBufferPointer { s in
                    latchkey_rsa_pss_verify(
                        ctx, hash.mdType,
                        UInt32(d.count), d.baseAddress, hash.mdType,
                        Int32(hash.byteCount), s.baseAddress) == 0
                }
            }
        }
    }

    private static func strippingLeadingZeros(_ bytes: [UInt8]) -> [UInt8] {
        guard let first = bytes.firstIndex(where: { $0 != 0 }) else { return [] }
        return Array(bytes[first...])
    }
}
