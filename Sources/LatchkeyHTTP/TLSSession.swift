internal import CMbedTLS
import Glibc

/// One TLS 1.2 client session over a `SocketConnection`: TLS 1.2 minimum, certificate chain and hostname
/// verified (VERIFY_REQUIRED), SNI sent, its own CTR_DRBG, and the client identity (certificate and key)
/// when one is given. The mbedTLS contexts are owned here and freed in `deinit`; nothing of them leaves
/// this file.
final class TLSSession {
    private let socket: SocketConnection
    private let ssl = UnsafeMutablePointer<mbedtls_ssl_context>.allocate(capacity: 1)
    private let config = UnsafeMutablePointer<mbedtls_ssl_config>.allocate(capacity: 1)
    private let drbg = UnsafeMutablePointer<mbedtls_ctr_drbg_context>.allocate(capacity: 1)
    private let entropy: UnsafeMutableRawPointer?  // an mbedtls_entropy_context (see latchkey_entropy_new)
    private let caChain: CACertificateChain
    /// Kept so the certificate and key mbedTLS points at outlive this session.
    private let clientIdentity: TLSClientIdentity?
    /// The first socket-level error seen by a BIO callback; it explains an mbedTLS failure better than
    /// the generic code mbedTLS returns after it.
    fileprivate var ioError: HTTPError?
    /// The first bytes the server sent, to tell a plain-HTTP answer from a TLS record.
    fileprivate var firstBytes: [UInt8] = []

    init(socket: SocketConnection, host: String, caChain: CACertificateChain,
         clientIdentity: TLSClientIdentity? = nil) throws(HTTPError) {
        self.socket = socket
        self.caChain = caChain
        self.clientIdentity = clientIdentity
        mbedtls_ssl_init(ssl)
        mbedtls_ssl_config_init(config)
        mbedtls_ctr_drbg_init(drbg)
        entropy = latchkey_entropy_new()
        guard entropy != nil else { throw .tlsFailure(reason: "cannot allocate the TLS entropy context") }

        let personalization = Array("latchkey-tls".utf8)
        var rc = mbedtls_ctr_drbg_seed(drbg, mbedtls_entropy_func, entropy, personalization, personalization.count)
        guard rc == 0 else { throw .tlsFailure(reason: "cannot seed the TLS RNG: \(MbedTLSError.text(rc))") }
        rc = mbedtls_ssl_config_defaults(config, MBEDTLS_SSL_IS_CLIENT, MBEDTLS_SSL_TRANSPORT_STREAM,
                                         MBEDTLS_SSL_PRESET_DEFAULT)
        guard rc == 0 else { throw .tlsFailure(reason: "TLS configuration failed: \(MbedTLSError.text(rc))") }
        // Debian's build also enables TLS 1.0/1.1; refuse them.
        mbedtls_ssl_conf_min_version(config, MBEDTLS_SSL_MAJOR_VERSION_3, MBEDTLS_SSL_MINOR_VERSION_3)
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
        // Sets SNI and the name the certificate must match (mbedTLS 2.28 matches DNS names, not IP SANs).
        var bare = host
        if bare.hasPrefix("["), bare.hasSuffix("]") { bare = String(bare.dropFirst().dropLast()) }
        rc = mbedtls_ssl_set_hostname(ssl, bare)
        guard rc == 0 else { throw .tlsFailure(reason: "invalid TLS host name: \(MbedTLSError.text(rc))") }
        mbedtls_ssl_set_bio(ssl, Unmanaged.passUnretained(self).toOpaque(), tlsSend, tlsReceive, nil)
    }

    deinit {
        mbedtls_ssl_free(ssl)
        mbedtls_ssl_config_free(config)
        mbedtls_ctr_drbg_free(drbg)
        latchkey_entropy_free(entropy)
        ssl.deallocate()
        config.deallocate()
        drbg.deallocate()
    }

    /// Runs the handshake; failures carry the verification reason or the protocol problem.
    func handshake() throws(HTTPError) {
        while true {
            let rc = mbedtls_ssl_handshake(ssl)
            if rc == 0 { return }
            if rc == MBEDTLS_ERR_SSL_WANT_READ || rc == MBEDTLS_ERR_SSL_WANT_WRITE { continue }
            if let ioError {
                // A server that asked for a certificate and then drops the connection has refused ours (or
                // our lack of one); its alert is lost when our next write meets the closed socket first.
                if case .ioFailure(let reason) = ioError, ssl.pointee.client_auth != 0 {
                    throw .tlsFailure(reason: clientCertificateVerdict("the server closed the connection: \(reason)"))
                }
                throw ioError
            }
            if rc == MBEDTLS_ERR_X509_CERT_VERIFY_FAILED {
                throw .tlsFailure(reason: TLSVerifyFlags.describe(mbedtls_ssl_get_verify_result(ssl)))
            }
            if rc == MBEDTLS_ERR_SSL_BAD_HS_PROTOCOL_VERSION {
                throw .tlsFailure(reason: "protocol version: the server does not offer TLS 1.2 or later")
            }
            if rc == MBEDTLS_ERR_SSL_FATAL_ALERT_MESSAGE {
                throw .tlsFailure(reason: describeAlert())
            }
            if rc == MBEDTLS_ERR_SSL_CONN_EOF || rc == MBEDTLS_ERR_NET_CONN_RESET {
                throw .tlsFailure(reason: "the server closed the connection during the handshake (often: no TLS 1.2 support)")
            }
            throw .tlsFailure(reason: "handshake failed: \(MbedTLSError.text(rc))")
        }
    }

    /// The fatal alert the server just sent (mbedTLS leaves it in `in_msg`: level, description).
    private func describeAlert() -> String {
        guard let msg = ssl.pointee.in_msg else { return "the server sent a fatal alert" }
        // After a CertificateRequest, a fatal alert is the server's verdict on our certificate (or its absence).
        if ssl.pointee.client_auth != 0 { return clientCertificateVerdict("alert \(msg[1])") }
        switch Int32(msg[1]) {
        case MBEDTLS_SSL_ALERT_MSG_PROTOCOL_VERSION:
            return "protocol version: the server refused TLS 1.2 (it offers only an older version)"
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
            if rc > 0 { out.removeLast(max - Int(rc)); return out }
            if rc == 0 || rc == MBEDTLS_ERR_SSL_PEER_CLOSE_NOTIFY || rc == MBEDTLS_ERR_SSL_CONN_EOF { return [] }
            if rc == MBEDTLS_ERR_SSL_WANT_READ || rc == MBEDTLS_ERR_SSL_WANT_WRITE { continue }
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
        !firstBytes.isEmpty && firstBytes.allSatisfy { (0x20...0x7e).contains($0) || $0 == 0x0d || $0 == 0x0a || $0 == 0x09 }
    }

    fileprivate func bioReceive(_ buf: UnsafeMutablePointer<UInt8>, _ len: Int) -> Int32 {
        do throws(HTTPError) {
            let n = try socket.receive(UnsafeMutableRawBufferPointer(start: buf, count: len))
            if firstBytes.count < 5 { firstBytes += UnsafeBufferPointer(start: buf, count: min(n, 5 - firstBytes.count)) }
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
            (MBEDTLS_X509_BADCERT_BAD_KEY, "signed with an unacceptable key (too short or bad curve)"),
        ]
        for (bit, text) in table where flags & UInt32(bitPattern: bit) != 0 { reasons.append(text) }
        if reasons.isEmpty { reasons.append("certificate verification failed (flags 0x\(String(flags, radix: 16)))") }
        return "certificate rejected: " + reasons.joined(separator: "; ")
    }
}
