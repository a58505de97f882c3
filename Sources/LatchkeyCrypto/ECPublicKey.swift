internal import CMbedTLS

/// An elliptic-curve public key on P-256, P-384 or P-521, validated on creation.
/// Verifies ECDSA signatures in the raw r‖s form JWS uses (RFC 7518 §3.4).
/// Concurrent verifies with one key are safe (they take turns on the parsed key).
public struct ECPublicKey: Sendable, Equatable {
    /// The curve the point lies on.
    public let curve: ECCurve
    /// Affine x, big-endian, exactly `curve.coordinateByteCount` bytes.
    public let x: [UInt8]
    /// Affine y, big-endian, exactly `curve.coordinateByteCount` bytes.
    public let y: [UInt8]

    let storage: ECKeyPairStorage

    /// A key from its affine coordinates (each exactly `curve.coordinateByteCount` bytes,
    /// as JWK `x`/`y` are). The point must be on the curve and not the identity.
    public init(curve: ECCurve, x: [UInt8], y: [UInt8]) throws(CryptoError) {
        let n = curve.coordinateByteCount
        guard x.count == n, y.count == n else {
            throw .invalidKey("EC coordinates are \(x.count) and \(y.count) bytes, expected \(n) for \(curve)")
        }
        let storage = try ECKeyPairStorage(curve: curve)
        try storage.withKeyPair { (kp) throws(CryptoError) in
            let encoded = [0x04] + x + y
            let read = encoded.withUnsafeBufferPointer {
                mbedtls_ecp_point_read_binary(latchkey_ecp_grp(kp), latchkey_ecp_Q(kp), $0.baseAddress, $0.count)
            }
            if read != 0 { throw .invalidKey("EC point could not be read: \(CryptoError.mbedTLSText(read))") }
            let check = mbedtls_ecp_check_pubkey(latchkey_ecp_grp(kp), latchkey_ecp_Q(kp))
            if check != 0 { throw .invalidKey("EC point is not a valid \(curve) public key: \(CryptoError.mbedTLSText(check))") }
        }
        self.curve = curve
        self.x = x
        self.y = y
        self.storage = storage
    }

    /// Keys are equal when curve and point are (public values, so no constant-time need).
    public static func == (lhs: ECPublicKey, rhs: ECPublicKey) -> Bool {
        lhs.curve == rhs.curve && lhs.x == rhs.x && lhs.y == rhs.y
    }

    /// True when `signature` (r‖s, exactly 2 × `coordinateByteCount` bytes, 0 < r, s < n)
    /// is a valid ECDSA signature of `message` hashed with `hash`.
    public func isValidSignature(rawRS signature: [UInt8], for message: [UInt8], hash: HashAlgorithm) -> Bool {
        isValidSignature(rawRS: signature, digest: hash.hash(message))
    }

    /// Like `isValidSignature(rawRS:for:hash:)`, for a message already hashed by the caller.
    public func isValidSignature(rawRS signature: [UInt8], digest: [UInt8]) -> Bool {
        let n = curve.coordinateByteCount
        guard signature.count == 2 * n, !digest.isEmpty else { return false }
        return MPI.with { r in
            MPI.with { s in
                let readCode = signature.withUnsafeBufferPointer { sig -> Int32 in
                    let a = mbedtls_mpi_read_binary(r, sig.baseAddress, n)
                    return a != 0 ? a : mbedtls_mpi_read_binary(s, sig.baseAddress! + n, n)
                }
                guard readCode == 0 else { return false }
                // mbedtls_ecdsa_verify itself rejects r or s outside [1, n-1].
                return storage.withKeyPair { kp in
                    digest.withUnsafeBufferPointer { d in
                        mbedtls_ecdsa_verify(latchkey_ecp_grp(kp), d.baseAddress, d.count, latchkey_ecp_Q(kp), r, s) == 0
                    }
                }
            }
        }
    }
}
