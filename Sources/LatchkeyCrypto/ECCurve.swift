internal import CMbedTLS

/// The NIST curves JOSE uses (ES256/384/512).
public enum ECCurve: Sendable, Hashable {
    /// secp256r1 (P-256).
    case p256
    /// secp384r1 (P-384).
    case p384
    /// secp521r1 (P-521).
    case p521

    /// Length of one affine coordinate, and of each of r and s in a raw signature.
    public var coordinateByteCount: Int {
        switch self {
        case .p256: return 32
        case .p384: return 48
        case .p521: return 66
        }
    }

    /// mbedTLS group identifier.
    var groupID: mbedtls_ecp_group_id {
        switch self {
        case .p256: return MBEDTLS_ECP_DP_SECP256R1
        case .p384: return MBEDTLS_ECP_DP_SECP384R1
        case .p521: return MBEDTLS_ECP_DP_SECP521R1
        }
    }
}
