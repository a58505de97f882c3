internal import CMbedTLS
import LatchkeyCrypto

/// A client certificate chain and its private key, presented in the TLS handshake when the server asks
/// for one (RFC 8446 §4.4.2, RFC 5246 §7.4.6; the basis of RFC 8705 mutual-TLS client authentication).
///
/// Everything that can be wrong with the local files is checked here, when the identity is made, so a
/// bad file is reported before anything is sent: it parses, the key is RSA ≥ 2048 bits or EC P-256/P-384
/// and not encrypted, the key is the leaf certificate's, the leaf allows client authentication, and the
/// leaf is valid at the time given (no clock is read here). The server still decides whether it trusts
/// the chain; a refusal is an `HTTPError`.
///
/// One identity may be shared by any number of clients and concurrent connections (see
/// `ClientIdentityMaterial`). Its `description` shows the subject, validity and key type, never key bytes.
public struct TLSClientIdentity: Sendable, CustomStringConvertible {
    /// The private key's algorithm and size.
    public enum KeyType: Sendable, Hashable, CustomStringConvertible {
        /// RSA with a modulus of `bits` bits.
        case rsa(bits: Int)
        /// ECDSA on `curve` (P-256 or P-384).
        case ec(ECCurve)

        public var description: String {
            switch self {
            case .rsa(let bits): return "RSA \(bits)"
            case .ec(.p256): return "EC P-256"
            case .ec(.p384): return "EC P-384"
            case .ec(.p521): return "EC P-521"
            }
        }
    }

    /// SHA-256 of the leaf certificate's DER encoding, raw 32 bytes. Its base64url form is RFC 8705 §3.1's
    /// `x5t#S256` confirmation claim, which binds tokens to this certificate.
    public let certificateThumbprintSHA256: [UInt8]
    /// The leaf's subject distinguished name as mbedTLS prints it (`CN=device-42, O=Example`); bytes
    /// outside printable ASCII are shown as `?`, so it is safe to display.
    public let subject: String
    /// Start of the leaf's validity period.
    public let notBefore: Timestamp
    /// End of the leaf's validity period.
    public let notAfter: Timestamp
    /// The private key's algorithm and size.
    public let keyType: KeyType
    /// Certificates in the chain, leaf included.
    public let certificateCount: Int
    /// The parsed mbedTLS objects; they live as long as any copy of this value or any TLS session using it.
    let material: ClientIdentityMaterial

    /// Parses and checks a client identity.
    /// - Parameters:
    ///   - certificateChainPEM: PEM certificates, the leaf first, then any intermediates to send with it.
    ///   - privateKeyPEM: the leaf's private key, PEM PKCS#8, SEC1 or PKCS#1, unencrypted. Copies made to
    ///     parse it are zeroed; the parsed key is zeroed when the last user of this identity is gone.
    ///   - time: the instant at which the leaf must be within its validity period (normally now).
    public init(certificateChainPEM: [UInt8], privateKeyPEM: SecretBytes, at time: Timestamp) throws(ClientIdentityError) {
        let material = ClientIdentityMaterial()
        let leaf = material.chain
        // mbedTLS reads PEM only from a NUL-terminated buffer whose length counts the NUL.
        let rc = (certificateChainPEM + [0]).withUnsafeBufferPointer { mbedtls_x509_crt_parse(leaf, $0.baseAddress, $0.count) }
        if rc < 0 { throw .unreadableCertificate(reason: MbedTLSError.text(rc)) }
        if rc > 0 { throw .unreadableCertificate(reason: "\(rc) certificate(s) in the chain could not be parsed") }
        guard leaf.pointee.version != 0 else { throw .unreadableCertificate(reason: "no certificate found") }

        // mbedTLS 3.x parses a key and checks a pair with PSA's RNG.
        guard MbedTLSLibrary.isReady else { throw .unreadableKey(reason: "psa_crypto_init failed") }
        try Self.parseKey(privateKeyPEM, into: material.key)
        let keyType = try Self.checkKeyType(material.key)
        guard latchkey_pk_check_pair(&leaf.pointee.pk, material.key) == 0 else { throw .keyDoesNotMatchCertificate }
        if mbedtls_x509_crt_check_key_usage(leaf, UInt32(MBEDTLS_X509_KU_DIGITAL_SIGNATURE)) != 0 {
            throw .notForClientAuthentication(reason: "its key usage does not include digitalSignature")
        }
        let clientAuth: [CChar] = [0x2B, 0x06, 0x01, 0x05, 0x05, 0x07, 0x03, 0x02]  // id-kp-clientAuth, 1.3.6.1.5.5.7.3.2
        if mbedtls_x509_crt_check_extended_key_usage(leaf, clientAuth, clientAuth.count) != 0 {
            throw .notForClientAuthentication(reason: "its extended key usage does not include clientAuth")
        }

        let notBefore = Self.timestamp(leaf.pointee.valid_from)
        let notAfter = Self.timestamp(leaf.pointee.valid_to)
        if time < notBefore { throw .notYetValid(notBefore: notBefore) }
        if time > notAfter { throw .expired(notAfter: notAfter) }

        var count = 0
        var next: UnsafeMutablePointer<mbedtls_x509_crt>? = leaf
        while let crt = next, crt.pointee.version != 0 { count += 1; next = crt.pointee.next }

        self.certificateThumbprintSHA256 = HashAlgorithm.sha256.hash(
            UnsafeBufferPointer(
                start: leaf.pointee.raw.p,
                count: leaf.pointee.raw.len))
        self.subject = Self.subjectText(leaf)
        self.notBefore = notBefore
        self.notAfter = notAfter
        self.keyType = keyType
        self.certificateCount = count
        self.material = material
    }

    public var description: String {
        "TLSClientIdentity(subject: \(subject), not after: \(notAfter), key: \(keyType))"
    }

    /// Parses the key from a zeroed-after-use, NUL-terminated copy (no password: an encrypted key is refused).
    private static func parseKey(_ pem: SecretBytes, into key: UnsafeMutablePointer<mbedtls_pk_context>) throws(ClientIdentityError) {
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: pem.count + 1, alignment: 1)
        defer {
            mbedtls_platform_zeroize(buffer.baseAddress, buffer.count)
            buffer.deallocate()
        }
        pem.withUnsafeBytes { buffer.copyMemory(from: $0) }
        buffer[pem.count] = 0
        let bytes = buffer.bindMemory(to: UInt8.self)
        let rc = latchkey_pk_parse_key(key, bytes.baseAddress, bytes.count)
        if rc == MBEDTLS_ERR_PK_PASSWORD_REQUIRED { throw .encryptedKey }
        if rc != 0 { throw .unreadableKey(reason: MbedTLSError.text(rc)) }
    }

    /// RSA ≥ 2048 bits or EC on P-256/P-384, the keys RFC 8705 deployments and this project's signers use.
    private static func checkKeyType(_ key: UnsafeMutablePointer<mbedtls_pk_context>) throws(ClientIdentityError) -> KeyType {
        let bits = Int(mbedtls_pk_get_bitlen(key))
        switch mbedtls_pk_get_type(key) {
        case MBEDTLS_PK_RSA:
            guard bits >= 2048 else { throw .unsupportedKey(algorithm: "RSA", bits: bits) }
            return .rsa(bits: bits)
        case MBEDTLS_PK_ECKEY, MBEDTLS_PK_ECDSA:
            let group = mbedtls_pk_ec(key.pointee).map { latchkey_ecp_grp($0).pointee.id } ?? MBEDTLS_ECP_DP_NONE
            if group == MBEDTLS_ECP_DP_SECP256R1 { return .ec(.p256) }
            if group == MBEDTLS_ECP_DP_SECP384R1 { return .ec(.p384) }
            let name = mbedtls_ecp_curve_info_from_grp_id(group).map { String(cString: $0.pointee.name) } ?? "EC curve \(group.rawValue)"
            throw .unsupportedKey(algorithm: name, bits: bits)
        default:
            throw .unsupportedKey(algorithm: mbedtls_pk_get_name(key).map { String(cString: $0) } ?? "unknown", bits: bits)
        }
    }

    /// An X.509 time (UTC, already range-checked by the parser) as a `Timestamp`.
    private static func timestamp(_ t: mbedtls_x509_time) -> Timestamp {
        let days = CivilDate.daysSinceEpoch(year: Int64(t.year), month: Int64(t.mon), day: Int64(t.day))
        let seconds = days * 86_400 + Int64(t.hour) * 3_600 + Int64(t.min) * 60 + Int64(t.sec)
        return Timestamp(timeIntervalSince1970: Double(seconds))
    }

    private static func subjectText(_ crt: UnsafeMutablePointer<mbedtls_x509_crt>) -> String {
        var buf = [CChar](repeating: 0, count: 1024)
        let n = mbedtls_x509_dn_gets(&buf, buf.count, &crt.pointee.subject)
        guard n >= 0 else { return "(subject too long to show)" }
        return String(decoding: buf.prefix(Int(n)).map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }
}

/// The parsed chain and key behind a `TLSClientIdentity`, freed (the key zeroed by `mbedtls_pk_free`) when
/// the last identity copy and the last `TLSSession` holding it are gone.
///
/// Shared by concurrent handshakes without a lock. That is safe because a client handshake only reads
/// them after `mbedtls_ssl_conf_own_cert`: the chain is sent from its DER bytes; an EC key signs through
/// `eckey_sign_wrap`, which copies the key pair into a fresh ECDSA context first (so the shared group and
/// its precomputed tables are never written); an RSA key's blinding
/// values are updated under the RSA context's own mutex (`MBEDTLS_THREADING_C`, which Debian's mbedTLS
/// enables; a test checks it is compiled in).
final class ClientIdentityMaterial: @unchecked Sendable {
    let chain = UnsafeMutablePointer<mbedtls_x509_crt>.allocate(capacity: 1)
    let key = UnsafeMutablePointer<mbedtls_pk_context>.allocate(capacity: 1)

    init() {
        mbedtls_x509_crt_init(chain)
        mbedtls_pk_init(key)
    }

    deinit {
        mbedtls_x509_crt_free(chain)
        mbedtls_pk_free(key)
        chain.deallocate()
        key.deallocate()
    }
}
