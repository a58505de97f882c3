internal import CMbedTLS
import Glibc
import LatchkeyCrypto

/// One TLS client session over a `SocketConnection`: TLS 1.3 or 1.2 (1.2 only with mbedTLS 2.28), certificate
/// chain and host name verified (VERIFY_REQUIRED; an IP-address host only by an iPAddress SAN), SNI sent,
/// its own CTR_DRBG, and the client identity (certificate and key) when one is given. No session tickets,
/// no 0-RTT: each connection carries one request. The mbedTLS contexts are owned here and freed in `deinit`; nothing of them leaves
/// this file.
final class TLSSession {
    private let socket: SocketConnection
    private let ssl = UnsafeMutablePointer<mbedtls_ssl_context>.allocate(capacity: 1)
    private let config = UnsafeMutablePointer<mbedtls_ssl_config>.allocate(capacity: 1)
    private let drbg = UnsafeMutablePointer<mbedtls_ctr_drbg_context>.allocate(capacity: 1)
    private let entropy: UnsafeMutableRawPointer?  // an mbedtls_entropy_context (see latchkey_entropy_new)
    /// The address an IP-literal host must be named by (length 0 for a DNS host); read by the verify callback.
    private let ipHost = UnsafeMutablePointer<latchkey_ip_host>.allocate(capacity: 1)
    private let caChain: CACertificateChain
    /// Kept so the certificate and key mbedTLS points at outlive this session.
    private let clientIdentity: TLSClientIdentity?
    /// The first socket-level error seen by a BIO callback; it explains an mbedTLS failure better than
    /// the generic code mbedTLS returns after it.
    fileprivate var ioError: HTTPError?
    /// The first bytes the server sent, to tell a plain-HTTP answer from a TLS record and to read the
    /// version a ServerHello chose.
    fileprivate var firstBytes: [UInt8] = []
    /// The server sent a CertificateRequest: a failure after it is the server's verdict on our certificate.
    private var certificateRequested = false
    /// We have sent ChangeCipherSpec (TLS 1.2): records after it are encrypted and no longer read.
    fileprivate var sentChangeCipherSpec = false
    /// TLS 1.2 sends its Certificate message in the clear, and only when asked (RFC 5246 §7.4.6).
    fileprivate var sentCertificateMessage = false
    /// Application data has arrived, so the handshake (TLS 1.3: including the server's check of our
    /// certificate, which follows our Finished) is accepted.
    private var receivedData = false

    init(
        socket: SocketConnection, host: String, caChain: CACertificateChain,
        clientIdentity: TLSClientIdentity? = nil
    ) throws(HTTPError) {
        self.socket = socket
        self.caChain = caChain
        self.clientIdentity = clientIdentity
        mbedtls_ssl_init(ssl)
        mbedtls_ssl_config_init(config)
        mbedtls_ctr_drbg_init(drbg)
        ipHost.initialize(to: latchkey_ip_host())
        entropy = latchkey_entropy_new()
        // mbedTLS 3.x's TLS 1.3 runs its key exchange through PSA.
        guard MbedTLSLibrary.isReady else { throw .tlsFailure(reason: "cannot start the crypto library (psa_crypto_init)") }
        guard entropy != nil else { throw .tlsFailure(reason: "cannot allocate the TLS entropy context") }

        let personalization = Array("latchkey-tls".utf8)
        var rc = mbedtls_ctr_drbg_seed(drbg, mbedtls_entropy_func, entropy, personalization, personalization.count)
        guard rc == 0 else { throw .tlsFailure(reason: "cannot seed the TLS RNG: \(MbedTLSError.text(rc))") }
        rc = mbedtls_ssl_config_defaults(
            config, MBEDTLS_SSL_IS_CLIENT, MBEDTLS_SSL_TRANSPORT_STREAM,
            MBEDTLS_SSL_PRESET_DEFAULT)
        guard rc == 0 else { throw .tlsFailure(reason: "TLS configuration failed: \(MbedTLSError.text(rc))") }
        // TLS 1.2 minimum (Debian's 2.28 also enables 1.0/1.1), 1.3 maximum where the library has it.
        latchkey_ssl_conf_versions(config)
        mbedtls_ssl_conf_authmode(config, MBEDTLS_SSL_VERIFY_REQUIRED)
        mbedtls_ssl_conf_ca_chain(config, caChain.chain, nil)
        mbedtls_ssl_conf_rng(config, mbedtls_ctr_drbg_random, drbg)
        if let material = clientIdentity?.material {
            // Sent only if the server asks (CertificateRequest); without one the handshake is unchanged.
            rc = mbedtls_ssl_conf_own_cert(config, material.chain, material.key)
            guard rc == 0 else { throw .tlsFailure(reason: "cannot use the client certificate: \(MbedTLSError.text(rc))") }
        }
        rc = mbedtls_ssl_setup(ssl, config)
        guard rc == 0 else { throw .tlsFailure(reason: "TLS setup failed: \(MbedTLSError.text(rc))") }
        // A DNS name: SNI and the name the certificate must match. An IP literal is not sent as SNI
        // (RFC 6066 §3) and must be an iPAddress SAN, which mbedTLS alone does not ensure (it also takes
        // a DNS name or CN spelling the address): the verify callback is then the whole name check,
        // and the NULL host name tells mbedTLS so (3.6 otherwise refuses a handshake without one).
        var bare = host
        if bare.hasPrefix("["), bare.hasSuffix("]") { bare = String(bare.dropFirst().dropLast()) }
        Self.parseAddress(bare, into: ipHost)
        mbedtls_ssl_conf_verify(config, latchkey_verify_ip_san, ipHost)
        rc = ipHost.pointee.length > 0 ? mbedtls_ssl_set_hostname(ssl, nil) : mbedtls_ssl_set_hostname(ssl, bare)
        guard rc == 0 else { throw .tlsFailure(reason: "invalid TLS host name: \(MbedTLSError.text(rc))") }
        mbedtls_ssl_set_bio(ssl, Unmanaged.passUnretained(self).toOpaque(), tlsSend, tlsReceive, nil)
    }

    deinit {
        mbedtls_ssl_free(ssl)
        mbedtls_ssl_config_free(config)
        mbedtls_ctr_drbg_free(drbg)
        latchkey_entropy_free(entropy)
        ipHost.deallocate()
        ssl.deallocate()
        config.deallocate()
        drbg.deallocate()
    }

    /// IPv4 or IPv6 literal → its bytes in `host`; anything else leaves length 0 (a DNS name).
    private static func parseAddress(_ text: String, into host: UnsafeMutablePointer<latchkey_ip_host>) {
        var bytes = [UInt8](repeating: 0, count: 16)
        let length = bytes.withUnsafeMutableBytes { out -> Int in
            if inet_pton(AF_INET, text, out.baseAddress) == 1 { return 4 }
            if inet_pton(AF_INET6, text, out.baseAddress) == 1 { return 16 }
            return 0
        }
        withUnsafeMutableBytes(of: &host.pointee.address) { $0.copyBytes(from: bytes) }
        host.pointee.length = length
    }

    /// TLS 1.3 is offered (mbedTLS 3.x); with 2.28 only 1.2.
    static var offersTLS13: Bool { latchkey_tls_max_version() == 0x0304 }
    /// An IP-address host can be verified (mbedTLS 3.x); with 2.28 it is always a name mismatch.
    static var matchesIPAddressSANs: Bool { latchkey_ip_san_supported() != 0 }

    /// What this build offers, for messages.
    static var offeredVersions: String {
        offersTLS13 ? "TLS 1.3 and 1.2" : "TLS 1.2 only (mbedTLS \(MbedTLSInfo.version) has no TLS 1.3)"
    }

    /// The version the server's ServerHello chose, when it was the first record (server_version, RFC 5246
    /// §7.4.1.3; a TLS 1.3 ServerHello never fails this way).
    private var serverHelloVersion: String? {
        guard firstBytes.count >= 11, firstBytes[0] == 22, firstBytes[5] == 2 else { return nil }
        return Self.versionName(major: firstBytes[9], minor: firstBytes[10])
    }

    private static func versionName(major: UInt8, minor: UInt8) -> String {
        switch (major, minor) {
        case (3, 0): return "SSL 3.0"
        case (3, 1): return "TLS 1.0"
        case (3, 2): return "TLS 1.1"
        case (3, 3): return "TLS 1.2"
        case (3, 4): return "TLS 1.3"
        default: return "version \(major).\(minor)"
        }
    }

    /// Runs the handshake; failures carry the verification reason or the protocol problem.
    func handshake() throws(HTTPError) {
        var requested: Int32 = 0
        defer { if requested != 0 { certificateRequested = true } }
        while latchkey_ssl_handshake_over(ssl) == 0 {
            let rc = latchkey_ssl_handshake_step(ssl, &requested)
            if requested != 0 || sentCertificateMessage { certificateRequested = true }
            if rc == 0 { continue }
            if rc == MBEDTLS_ERR_SSL_WANT_READ || rc == MBEDTLS_ERR_SSL_WANT_WRITE { continue }
            if let ioError {
                // A server that asked for a certificate and then drops the connection has refused ours (or
                // our lack of one); its alert is lost when our next write meets the closed socket first.
                if case .ioFailure(let reason) = ioError, certificateRequested {
                    throw .tlsFailure(reason: clientCertificateVerdict("the server closed the connection: \(reason)"))
                }
                throw ioError
            }
            if rc == MBEDTLS_ERR_X509_CERT_VERIFY_FAILED {
                throw .tlsFailure(reason: TLSVerifyFlags.describe(mbedtls_ssl_get_verify_result(ssl)))
            }
            if rc == LATCHKEY_ERR_SSL_BAD_PROTOCOL_VERSION {
                let chosen = serverHelloVersion.map { "the server chose \($0)" } ?? "the server chose a version it does not offer"
                throw .tlsFailure(reason: "protocol version: latchkey offers \(Self.offeredVersions); \(chosen)")
            }
            if rc == MBEDTLS_ERR_SSL_FATAL_ALERT_MESSAGE {
                throw .tlsFailure(reason: describeAlert())
            }
            if rc == MBEDTLS_ERR_SSL_CONN_EOF || rc == MBEDTLS_ERR_NET_CONN_RESET {
                if certificateRequested { throw .tlsFailure(reason: clientCertificateVerdict("the server closed the connection")) }
                throw .tlsFailure(
                    reason: "the server closed the connection during the handshake (often: it accepts none of \(Self.offeredVersions))")
            }
            throw .tlsFailure(reason: "handshake failed: \(MbedTLSError.text(rc))")
        }
    }

    /// The fatal alert the server just sent (mbedTLS leaves it in `in_msg`: level, description).
    private func describeAlert() -> String {
        guard let msg = latchkey_ssl_in_msg(ssl) else { return "the server sent a fatal alert" }
        // After a CertificateRequest, a fatal alert is the server's verdict on our certificate (or its absence).
        if certificateRequested { return clientCertificateVerdict("alert \(msg[1])") }
        switch Int32(msg[1]) {
        case MBEDTLS_SSL_ALERT_MSG_PROTOCOL_VERSION:
            return "protocol version: latchkey offers \(Self.offeredVersions); the server accepts none of them (alert protocol_version)"
        case MBEDTLS_SSL_ALERT_MSG_INSUFFICIENT_SECURITY, MBEDTLS_SSL_ALERT_MSG_HANDSHAKE_FAILURE:
            return "handshake failure: no cipher suite or parameters in common with the server (alert \(msg[1]))"
        default:
            return "the server sent fatal alert \(msg[1]) during the handshake"
        }
    }

    /// Why a handshake failed after the server's CertificateRequest: it wanted a certificate we lack, or
    /// refused the one we sent.
    private func clientCertificateVerdict(_ detail: String) -> String {
        clientIdentity == nil
            ? "client certificate required: the server asked for one and none was presented (\(detail))"
            : "client certificate refused by the server (\(detail))"
    }

    /// Sends all bytes.
    func sendAll(_ bytes: [UInt8]) throws(HTTPError) {
        var offset = 0
        while offset < bytes.count {
            let rc = bytes.withUnsafeBufferPointer { buf in
                mbedtls_ssl_write(ssl, buf.baseAddress! + offset, buf.count - offset)
            }
            if rc > 0 { offset += Int(rc); continue }
            if rc == MBEDTLS_ERR_SSL_WANT_READ || rc == MBEDTLS_ERR_SSL_WANT_WRITE { continue }
            if let ioError { throw ioError }
            throw .ioFailure(reason: "TLS write failed: \(MbedTLSError.text(rc))")
        }
    }

    /// Receives up to `max` bytes; an empty result means the server closed the stream.
    func receive(max: Int) throws(HTTPError) -> [UInt8] {
        var out = [UInt8](repeating: 0, count: max)
        while true {
            let rc = out.withUnsafeMutableBufferPointer { mbedtls_ssl_read(ssl, $0.baseAddress, $0.count) }
            if rc > 0 { receivedData = true; out.removeLast(max - Int(rc)); return out }
            if rc == MBEDTLS_ERR_SSL_WANT_READ || rc == MBEDTLS_ERR_SSL_WANT_WRITE { continue }
            if rc == MBEDTLS_ERR_SSL_RECEIVED_NEW_SESSION_TICKET { continue }
            // TLS 1.3: the client's handshake ends with its Finished; the server checks our certificate
            // after that, so its refusal (an alert or a hang-up) arrives here, before any data.
            if certificateRequested && !receivedData && rc != MBEDTLS_ERR_SSL_PEER_CLOSE_NOTIFY {
                if rc == MBEDTLS_ERR_SSL_FATAL_ALERT_MESSAGE, let msg = latchkey_ssl_in_msg(ssl) {
                    throw .tlsFailure(reason: clientCertificateVerdict("alert \(msg[1])"))
                }
                if rc == 0 || rc == MBEDTLS_ERR_SSL_CONN_EOF || rc == MBEDTLS_ERR_NET_CONN_RESET || ioError != nil {
                    throw .tlsFailure(reason: clientCertificateVerdict("the server closed the connection"))
                }
            }
            if rc == 0 || rc == MBEDTLS_ERR_SSL_PEER_CLOSE_NOTIFY || rc == MBEDTLS_ERR_SSL_CONN_EOF { return [] }
            if let ioError { throw ioError }
            if rc == MBEDTLS_ERR_NET_CONN_RESET { return [] }
            throw .ioFailure(reason: "TLS read failed: \(MbedTLSError.text(rc))")
        }
    }

    /// Sends close_notify (best effort).
    func close() {
        _ = mbedtls_ssl_close_notify(ssl)
    }

    fileprivate func bioSend(_ buf: UnsafePointer<UInt8>, _ len: Int) -> Int32 {
        // Read at a record's start: mbedTLS passes one whole record per call unless the socket took part of it.
        if !sentChangeCipherSpec && len >= 6 {
            if buf[0] == 20 { sentChangeCipherSpec = true }
            if buf[0] == 22 && buf[5] == 11 { sentCertificateMessage = true }
        }
        do throws(HTTPError) {
            return Int32(try socket.send(UnsafeRawBufferPointer(start: buf, count: len)))
        } catch {
            if ioError == nil { ioError = error }
            return MBEDTLS_ERR_NET_SEND_FAILED
        }
    }

    /// True when the server's first bytes were printable text (an HTTP status line or an error page),
    /// which no TLS record starts with (its first byte is a content type, 20…24): `https://` was
    /// written for a plain-HTTP port.
    var receivedPlainText: Bool {
        !firstBytes.isEmpty && firstBytes.allSatisfy { CharacterClass.isPrintable($0) || CharacterClass.isWhitespace($0) }
    }

    fileprivate func bioReceive(_ buf: UnsafeMutablePointer<UInt8>, _ len: Int) -> Int32 {
        do throws(HTTPError) {
            let n = try socket.receive(UnsafeMutableRawBufferPointer(start: buf, count: len))
            if firstBytes.count < 11 { firstBytes += UnsafeBufferPointer(start: buf, count: min(n, 11 - firstBytes.count)) }
            return n == 0 ? MBEDTLS_ERR_SSL_CONN_EOF : Int32(n)
        } catch {
            if ioError == nil { ioError = error }
            return MBEDTLS_ERR_NET_RECV_FAILED
        }
    }
}

private func tlsSend(_ ctx: UnsafeMutableRawPointer?, _ buf: UnsafePointer<UInt8>?, _ len: Int) -> Int32 {
    Unmanaged<TLSSession>.fromOpaque(ctx!).takeUnretainedValue().bioSend(buf!, len)
}

private func tlsReceive(_ ctx: UnsafeMutableRawPointer?, _ buf: UnsafeMutablePointer<UInt8>?, _ len: Int) -> Int32 {
    Unmanaged<TLSSession>.fromOpaque(ctx!).takeUnretainedValue().bioReceive(buf!, len)
}

/// Readable reasons for the `MBEDTLS_X509_BADCERT_*` verification flags.
enum TLSVerifyFlags {
    static func describe(_ flags: UInt32) -> String {
        var reasons: [String] = []
        let table: [(Int32, String)] = [
            (MBEDTLS_X509_BADCERT_NOT_TRUSTED, "untrusted: the certificate chain does not lead to a trusted CA"),
            (MBEDTLS_X509_BADCERT_EXPIRED, "expired: the certificate's validity has ended"),
            (MBEDTLS_X509_BADCERT_FUTURE, "not yet valid: the certificate's validity starts in the future (check the clock)"),
            (MBEDTLS_X509_BADCERT_CN_MISMATCH, "name mismatch: the certificate is not for this host name"),
            (MBEDTLS_X509_BADCERT_REVOKED, "revoked"),
            (MBEDTLS_X509_BADCERT_MISSING, "the server sent no certificate"),
            (MBEDTLS_X509_BADCERT_KEY_USAGE, "key usage does not allow TLS server authentication"),
            (MBEDTLS_X509_BADCERT_EXT_KEY_USAGE, "extended key usage does not allow TLS server authentication"),
            (MBEDTLS_X509_BADCERT_BAD_MD, "signed with an unacceptable hash"),
            (MBEDTLS_X509_BADCERT_BAD_PK, "signed with an unacceptable key type"),
            (MBEDTLS_X509_BADCERT_BAD_KEY, "signed with an unacceptable key (too short or bad curve)")
        ]
        for (bit, text) in table where flags & UInt32(bitPattern: bit) != 0 { reasons.append(text) }
        if reasons.isEmpty { reasons.append("certificate verification failed (flags 0x\(String(flags, radix: 16)))") }
        return "certificate rejected: " + reasons.joined(separator: "; ")
    }
}
