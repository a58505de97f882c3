/// Asks a server that hung up on a plaintext request whether it speaks TLS on that port, by sending
/// a minimal TLS 1.2 ClientHello (RFC 5246 §7.4.1.2) and looking at the first record header of the
/// answer: a handshake (22) or alert (21) record with major version 3 is TLS, whatever its content.
/// The hello carries no secret (a zero random, no session, no extensions), and it only ever goes
/// to a loopback host, since `http://` is refused anywhere else.
enum TLSProbe {
    /// Record header (handshake, TLS 1.0 record version, 49 bytes), ClientHello header (45 bytes),
    /// client_version 3.3, 32 zero bytes of random, no session id, three AES-GCM cipher suites
    /// (ECDHE-RSA, ECDHE-ECDSA, RSA), the null compression method.
    static let clientHello: [UInt8] =
        [0x16, 0x03, 0x01, 0x00, 0x31, 0x01, 0x00, 0x00, 0x2d, 0x03, 0x03]
        + [UInt8](repeating: 0, count: 32)
        + [0x00, 0x00, 0x06, 0xc0, 0x2f, 0xc0, 0x2b, 0x00, 0x9c, 0x01, 0x00]

    /// True when `host:port` answers the hello with a TLS record within a second or two.
    static func answersTLS(host: String, port: Int, cancellation: CancellationFlag) -> Bool {
        let deadline = Deadline(secondsFromNow: 2)
        guard
            let socket = try? SocketConnection.connect(
                host: host, port: port, connectDeadline: deadline, connectTimeout: 2,
                deadline: deadline, timeout: 2, loopbackOnly: true,
                cancellation: cancellation)
        else { return false }
        defer { socket.close() }
        guard (try? socket.sendAll(clientHello)) != nil, let reply = try? socket.receive(max: 5), reply.count >= 2 else {
            return false
        }
        return (reply[0] == 0x16 || reply[0] == 0x15) && reply[1] == 0x03
    }
}
