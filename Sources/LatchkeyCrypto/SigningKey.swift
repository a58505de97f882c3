internal import CMbedTLS

/// A private key for signing, as read from PEM: RSA (≥ 2048 bits) or EC on P-256/P-384.
public enum SigningKey: Sendable {
    /// RSA, for RS* and PS*.
    case rsa(RSAPrivateKey)
    /// EC, for ES256 (P-256) or ES384 (P-384).
    case ec(ECPrivateKey)

    /// The public key that verifies this key's signatures.
    public var publicKey: PublicKey {
        switch self {
        case .rsa(let key): return .rsa(key.publicKey)
        case .ec(let key): return .ec(key.publicKey)
        }
    }

    /// Reads one unencrypted PEM private key: PKCS#8 "PRIVATE KEY", SEC1 "EC PRIVATE KEY" or
    /// PKCS#1 "RSA PRIVATE KEY". Refuses (`CryptoError.privateKeyRefused`) encrypted keys, other
    /// labels, other algorithms and curves, RSA under 2048 bits, a structure that does not match
    /// its label, and anything but whitespace around the block. `random` blinds every signature.
    public init(pem: SecretBytes, random: some RandomSource) throws(CryptoError) {
        let block = try Self.reading(pem) { (text) throws(CryptoError) in try PEMBlock(parsing: text) }
        self = try Self.reading(block.der) { (der) throws(CryptoError) in
            try Self.parse(der: der, label: block.label, random: random)
        }
    }

    /// As `init(pem:random:)` for PEM text; the text is copied into zeroed-on-release storage.
    public init(pem: String, random: some RandomSource) throws(CryptoError) {
        var text = pem
        let secret = text.withUTF8 { utf8 in
            // Cannot fail: the body only copies.
            try! SecretBytes(count: utf8.count) { (out) throws(CryptoError) in out.copyMemory(from: UnsafeRawBufferPointer(utf8)) }
        }
        try self.init(pem: secret, random: random)
    }

    /// `SecretBytes.withUnsafeBytes` is rethrows (untyped); this carries the typed error through.
    private static func reading<R>(
        _ secret: SecretBytes,
        _ body: (UnsafeRawBufferPointer) throws(CryptoError) -> R
    ) throws(CryptoError) -> R {
        try secret.withUnsafeBytes { bytes -> Result<R, CryptoError> in
            do throws(CryptoError) { return .success(try body(bytes)) } catch { return .failure(error) }
        }.get()
    }

    private static func parse(der: UnsafeRawBufferPointer, label: String, random: some RandomSource) throws(CryptoError) -> SigningKey {
        // The label was checked by PEMBlock, so it names one of the formats.
        let announced = PrivateKeyFormat(pemLabel: label)!
        let found = try PrivateKeyDER.format(of: der)
        guard found == announced else { throw .privateKeyRefused(.formatMismatch(label: label, found: found)) }
        // mbedTLS 3.x parses (and checks an EC key's blinding) with PSA's RNG.
        guard MbedTLSLibrary.isReady else { throw .mbedTLS(code: -1, operation: "psa_crypto_init") }
        var context = mbedtls_pk_context()
        return try withUnsafeMutablePointer(to: &context) { (pk) throws(CryptoError) -> SigningKey in
            mbedtls_pk_init(pk)
            // Frees and zeroes the parsed key whatever happens; the keys below hold copies.
            defer { mbedtls_pk_free(pk) }
            let code = latchkey_pk_parse_key(pk, der.baseAddress?.assumingMemoryBound(to: UInt8.self), der.count)
            if code != 0 { throw .privateKeyRefused(.malformedDER(CryptoError.mbedTLSText(code))) }
            switch mbedtls_pk_get_type(pk) {
            case MBEDTLS_PK_RSA:
                guard let rsa = mbedtls_pk_rsa(pk.pointee) else { throw .privateKeyRefused(.malformedDER("no RSA context")) }
                return .rsa(try RSAPrivateKey(copying: rsa, random: random))
            case MBEDTLS_PK_ECKEY:
                guard let kp = mbedtls_pk_ec(pk.pointee) else { throw .privateKeyRefused(.malformedDER("no EC context")) }
                let curve: ECCurve
                switch latchkey_ecp_grp(kp).pointee.id {
                case MBEDTLS_ECP_DP_SECP256R1: curve = .p256
                case MBEDTLS_ECP_DP_SECP384R1: curve = .p384
                case let other:
                    let name = mbedtls_ecp_curve_info_from_grp_id(other).flatMap { $0.pointee.name.map { String(cString: $0) } }
                    throw .privateKeyRefused(.unsupportedCurve(name ?? "group \(other.rawValue)"))
                }
                let key = try ECPrivateKey(curve: curve, copying: latchkey_ecp_d(kp), random: random)
                guard key.hasPublicPoint(latchkey_ecp_Q(kp)) else {
                    throw .privateKeyRefused(.inconsistentKey("the stored public key is not d·G"))
                }
                return .ec(key)
            case let other:
                throw .privateKeyRefused(.malformedDER("mbedTLS key type \(other.rawValue)"))
            }
        }
    }
}
