import CMbedTLS

/// A P-256 signing key (ES256, and later DPoP / private_key_jwt).
/// Signatures are deterministic (RFC 6979); the random source only blinds the computation.
public struct P256PrivateKey: Sendable {
    /// The matching public key. It has its own mbedTLS context, so handing it out (e.g. into a
    /// JWK) never keeps the private scalar alive.
    public let publicKey: ECPublicKey

    private let storage: ECKeyPairStorage
    private let random: any RandomSource

    /// Generates a fresh key from `random`.
    public init(random: some RandomSource) throws(CryptoError) {
        let storage = try ECKeyPairStorage(curve: .p256)
        let bridge = RandomSourceBridge(random)
        let (x, y) = try storage.withKeyPair { (kp) throws(CryptoError) -> ([UInt8], [UInt8]) in
            let code = bridge.withCallback { f, p in
                mbedtls_ecp_gen_keypair(&kp.pointee.grp, &kp.pointee.d, &kp.pointee.Q, f, p)
            }
            try CryptoError.check(code, "mbedtls_ecp_gen_keypair")
            return try Self.coordinates(kp)
        }
        self.storage = storage
        self.random = random
        self.publicKey = try ECPublicKey(curve: .p256, x: x, y: y)
    }

    /// A key from its 32-byte private scalar d (e.g. one stored earlier via `rawScalar`).
    public init(rawScalar: SecretBytes, random: some RandomSource) throws(CryptoError) {
        guard rawScalar.count == 32 else {
            throw .invalidKey("P-256 private scalar is \(rawScalar.count) bytes, expected 32")
        }
        let storage = try ECKeyPairStorage(curve: .p256)
        let bridge = RandomSourceBridge(random)
        let (x, y) = try storage.withKeyPair { (kp) throws(CryptoError) -> ([UInt8], [UInt8]) in
            let read = rawScalar.withUnsafeBytes {
                mbedtls_mpi_read_binary(&kp.pointee.d, $0.baseAddress?.assumingMemoryBound(to: UInt8.self), $0.count)
            }
            try CryptoError.check(read, "mbedtls_mpi_read_binary")
            let check = mbedtls_ecp_check_privkey(&kp.pointee.grp, &kp.pointee.d)
            if check != 0 { throw .invalidKey("P-256 private scalar out of range") }
            let mul = bridge.withCallback { f, p in
                mbedtls_ecp_mul(&kp.pointee.grp, &kp.pointee.Q, &kp.pointee.d, &kp.pointee.grp.G, f, p)
            }
            try CryptoError.check(mul, "mbedtls_ecp_mul")
            return try Self.coordinates(kp)
        }
        self.storage = storage
        self.random = random
        self.publicKey = try ECPublicKey(curve: .p256, x: x, y: y)
    }

    /// The 32-byte private scalar, for persisting the key (keep it encrypted).
    public var rawScalar: SecretBytes {
        // Writing 32 bytes of an in-range scalar cannot fail.
        try! SecretBytes(count: 32) { (out) throws(CryptoError) in
            let code = storage.withKeyPair { kp in
                mbedtls_mpi_write_binary(&kp.pointee.d, out.baseAddress?.assumingMemoryBound(to: UInt8.self), out.count)
            }
            try CryptoError.check(code, "mbedtls_mpi_write_binary")
        }
    }

    /// ECDSA over SHA-256 of `message`, deterministic per RFC 6979, as raw r‖s (64 bytes).
    public func signature(for message: [UInt8]) throws(CryptoError) -> [UInt8] {
        let digest = HashAlgorithm.sha256.hash(message)
        let bridge = RandomSourceBridge(random)
        return try MPI.with { (r) throws(CryptoError) -> [UInt8] in
            try MPI.with { (s) throws(CryptoError) -> [UInt8] in
                let code = storage.withKeyPair { kp in
                    bridge.withCallback { f, p in
                        digest.withUnsafeBufferPointer { d in
                            mbedtls_ecdsa_sign_det_ext(&kp.pointee.grp, r, s, &kp.pointee.d, d.baseAddress, d.count,
                                                       MBEDTLS_MD_SHA256, f, p)
                        }
                    }
                }
                try CryptoError.check(code, "mbedtls_ecdsa_sign_det_ext")
                return try MPI.bytes(r, count: 32) + MPI.bytes(s, count: 32)
            }
        }
    }

    private static func coordinates(_ kp: UnsafeMutablePointer<mbedtls_ecp_keypair>) throws(CryptoError) -> ([UInt8], [UInt8]) {
        var encoded = [UInt8](repeating: 0, count: 65)
        var length = 0
        let code = encoded.withUnsafeMutableBufferPointer {
            mbedtls_ecp_point_write_binary(&kp.pointee.grp, &kp.pointee.Q, MBEDTLS_ECP_PF_UNCOMPRESSED, &length,
                                           $0.baseAddress, $0.count)
        }
        try CryptoError.check(code, "mbedtls_ecp_point_write_binary")
        guard length == 65 else { throw .invalidKey("unexpected P-256 point encoding length \(length)") }
        return (Array(encoded[1..<33]), Array(encoded[33..<65]))
    }
}
