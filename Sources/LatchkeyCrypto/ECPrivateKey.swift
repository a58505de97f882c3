internal import CMbedTLS

/// An ECDSA signing key on P-256 or P-384 (ES256/ES384: DPoP proofs, private_key_jwt).
/// Signatures are deterministic (RFC 6979); the random source only blinds the computation.
/// Concurrent signatures with one key are safe (they take turns on the key pair).
public struct ECPrivateKey: Sendable {
    /// The curves a signing key may be on.
    public static let supportedCurves: Set<ECCurve> = [.p256, .p384]

    /// The curve of the key.
    public let curve: ECCurve
    /// The matching public key. It has its own mbedTLS context, so handing it out (e.g. into a
    /// JWK) never keeps the private scalar alive.
    public let publicKey: ECPublicKey

    private let storage: ECKeyPairStorage
    private let random: any RandomSource

    /// Generates a fresh key on `curve` from `random`.
    public init(curve: ECCurve, random: some RandomSource) throws(CryptoError) {
        try self.init(curve: curve, random: random) { (kp, bridge) throws(CryptoError) in
            let code = bridge.withCallback { f, p in
                mbedtls_ecp_gen_privkey(latchkey_ecp_grp(kp), latchkey_ecp_d(kp), f, p)
            }
            try CryptoError.check(code, "mbedtls_ecp_gen_privkey")
        }
    }

    /// A key from its private scalar d, big-endian, exactly `curve.coordinateByteCount` bytes
    /// (e.g. one stored earlier via `rawScalar`).
    public init(curve: ECCurve, rawScalar: SecretBytes, random: some RandomSource) throws(CryptoError) {
        guard rawScalar.count == curve.coordinateByteCount else {
            throw .invalidKey("\(curve) private scalar is \(rawScalar.count) bytes, expected \(curve.coordinateByteCount)")
        }
        try self.init(curve: curve, random: random) { (kp, _) throws(CryptoError) in
            let read = rawScalar.withUnsafeBytes {
                mbedtls_mpi_read_binary(latchkey_ecp_d(kp), $0.baseAddress?.assumingMemoryBound(to: UInt8.self), $0.count)
            }
            try CryptoError.check(read, "mbedtls_mpi_read_binary")
        }
    }

    /// A key whose scalar is copied from `scalar` (a parsed key pair that is freed afterwards).
    init(curve: ECCurve, copying scalar: UnsafePointer<mbedtls_mpi>, random: some RandomSource) throws(CryptoError) {
        try self.init(curve: curve, random: random) { (kp, _) throws(CryptoError) in
            try CryptoError.check(mbedtls_mpi_copy(latchkey_ecp_d(kp), scalar), "mbedtls_mpi_copy")
        }
    }

    /// Shared set-up: `loadScalar` fills d; d is range-checked and Q = d·G computed here, so the
    /// public key always matches the private one.
    private init(
        curve: ECCurve, random: some RandomSource,
        loadScalar: (UnsafeMutablePointer<mbedtls_ecp_keypair>, RandomSourceBridge) throws(CryptoError) -> Void
    ) throws(CryptoError) {
        guard Self.supportedCurves.contains(curve) else {
            throw .invalidKey("ECDSA signing keys are P-256 or P-384, not \(curve)")
        }
        let storage = try ECKeyPairStorage(curve: curve)
        let bridge = RandomSourceBridge(random)
        let (x, y) = try storage.withKeyPair { (kp) throws(CryptoError) -> ([UInt8], [UInt8]) in
            try loadScalar(kp, bridge)
            if mbedtls_ecp_check_privkey(latchkey_ecp_grp(kp), latchkey_ecp_d(kp)) != 0 {
                throw .invalidKey("\(curve) private scalar out of range")
            }
            let mul = bridge.withCallback { f, p in
                mbedtls_ecp_mul(latchkey_ecp_grp(kp), latchkey_ecp_Q(kp), latchkey_ecp_d(kp), &latchkey_ecp_grp(kp).pointee.G, f, p)
            }
            try CryptoError.check(mul, "mbedtls_ecp_mul")
            return try Self.coordinates(kp, curve: curve)
        }
        self.curve = curve
        self.storage = storage
        self.random = random
        self.publicKey = try ECPublicKey(curve: curve, x: x, y: y)
    }

    /// The private scalar (`curve.coordinateByteCount` bytes), for persisting the key (keep it encrypted).
    public var rawScalar: SecretBytes {
        // Writing an in-range scalar into a buffer of the group's size cannot fail.
        try! SecretBytes(count: curve.coordinateByteCount) { (out) throws(CryptoError) in
            let code = storage.withKeyPair { kp in
                mbedtls_mpi_write_binary(latchkey_ecp_d(kp), out.baseAddress?.assumingMemoryBound(to: UInt8.self), out.count)
            }
            try CryptoError.check(code, "mbedtls_mpi_write_binary")
        }
    }

    /// ECDSA over `hash` of `message`, deterministic per RFC 6979, as raw r‖s: each half exactly
    /// `curve.coordinateByteCount` bytes, left-padded with zeros (RFC 7518 §3.4).
    public func signature(for message: [UInt8], hash: HashAlgorithm) throws(CryptoError) -> [UInt8] {
        let digest = hash.hash(message)
        let bridge = RandomSourceBridge(random)
        let width = curve.coordinateByteCount
        return try MPI.with { (r) throws(CryptoError) -> [UInt8] in
            try MPI.with { (s) throws(CryptoError) -> [UInt8] in
                let code = storage.withKeyPair { kp in
                    bridge.withCallback { f, p in
                        digest.withUnsafeBufferPointer { d in
                            mbedtls_ecdsa_sign_det_ext(
                                latchkey_ecp_grp(kp), r, s, latchkey_ecp_d(kp), d.baseAddress, d.count,
                                hash.mdType, f, p)
                        }
                    }
                }
                try CryptoError.check(code, "mbedtls_ecdsa_sign_det_ext")
                return try MPI.bytes(r, count: width) + MPI.bytes(s, count: width)
            }
        }
    }

    /// True when `point` is this key's public point (used to check a parsed key's stored Q).
    func hasPublicPoint(_ point: UnsafePointer<mbedtls_ecp_point>) -> Bool {
        storage.withKeyPair { kp in mbedtls_ecp_point_cmp(latchkey_ecp_Q(kp), point) == 0 }
    }

    private static func coordinates(_ kp: UnsafeMutablePointer<mbedtls_ecp_keypair>, curve: ECCurve) throws(CryptoError) -> (
        [UInt8], [UInt8]
    ) {
        let n = curve.coordinateByteCount
        var encoded = [UInt8](repeating: 0, count: 1 + 2 * n)
        var length = 0
        let code = encoded.withUnsafeMutableBufferPointer {
            mbedtls_ecp_point_write_binary(
                latchkey_ecp_grp(kp), latchkey_ecp_Q(kp), MBEDTLS_ECP_PF_UNCOMPRESSED, &length,
                $0.baseAddress, $0.count)
        }
        try CryptoError.check(code, "mbedtls_ecp_point_write_binary")
        guard length == encoded.count else { throw .invalidKey("unexpected \(curve) point encoding length \(length)") }
        return (Array(encoded[1...n]), Array(encoded[(n + 1)...]))
    }
}
