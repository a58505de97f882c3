/// The blocking part of one exchange, run on a dedicated thread: connect (directly or through the proxy's
/// CONNECT tunnel), TLS handshake, send, and read until the parser has a complete response.
enum Connection {
    /// `proxy` is the route's answer for `target` (HTTPClient decides it before anything is sent).
    static func perform(
        head: [UInt8], body: [UInt8], target: RequestTarget, method: String,
        caChain: CACertificateChain?, proxy: ProxySettings?, configuration: HTTPClient.Configuration,
        deadline: Deadline, timeout: Double, cancellation: CancellationFlag,
        streaming: BodyStreaming? = nil
    ) throws(HTTPError) -> HTTPResponseParser.Message {
        let connectDeadline = deadline.earlier(Deadline(secondsFromNow: configuration.connectTimeout))
        let connectTimeout = min(configuration.connectTimeout, timeout)
        let socket: SocketConnection
        if let proxy {
            do {
                socket = try SocketConnection.connect(
                    host: proxy.host, port: proxy.port, connectDeadline: connectDeadline,
                    connectTimeout: connectTimeout, deadline: deadline, timeout: timeout,
                    loopbackOnly: false, cancellation: cancellation)
            } catch {
                switch error {
                case .dnsFailure, .connectFailed: throw .proxyFailure(reason: "cannot reach proxy \(proxy.host):\(proxy.port): \(error)")
                default: throw error
                }
            }
            try openTunnel(socket: socket, proxy: proxy, target: target, limits: configuration.limits)
        } else {
            socket = try SocketConnection.connect(
                host: target.host, port: target.port, connectDeadline: connectDeadline,
                connectTimeout: connectTimeout, deadline: deadline, timeout: timeout,
                loopbackOnly: !target.isTLS, cancellation: cancellation)
        }
        defer { socket.close() }

        var parser = HTTPResponseParser(limits: configuration.limits, requestMethod: method)
        if let caChain {
            // With a proxy this runs inside the tunnel, so the client identity goes to the origin only.
            let tls = try TLSSession(
                socket: socket, host: target.host, caChain: caChain,
                clientIdentity: configuration.clientIdentity)
            do { try tls.handshake() } catch {
                if tls.receivedPlainText { throw .tlsNotSpoken(host: target.host, port: target.port) }
                throw error
            }
            try tls.sendAll(head + body)
            try receive(into: &parser, streaming: streaming) { () throws(HTTPError) in try tls.receive(max: 16 * 1024) }
            tls.close()
        } else {
            var received = 0
            do {
                try socket.sendAll(head + body)
                try receive(into: &parser, streaming: streaming) { () throws(HTTPError) in
                    let chunk = try socket.receive(max: 16 * 1024)
                    received += chunk.count
                    return chunk
                }
            } catch {
                // A TLS server drops a plaintext request without a byte: ask it whether it speaks TLS,
                // so `http://` written for `https://` is named as that, not as a network failure.
                switch error {
                case .ioFailure, .protocolViolation:
                    if received == 0, TLSProbe.answersTLS(host: target.host, port: target.port, cancellation: cancellation) {
                        throw .tlsExpected(host: target.host, port: target.port)
                    }
                default: break
                }
                throw error
            }
        }
        guard let message = parser.message else { throw .protocolViolation(reason: "incomplete response") }
        return message
    }

    /// Reads until the parser has a whole response. When streaming, the body goes to the chosen
    /// sink after every read, so at most one read's worth of body is ever held here.
    private static func receive(
        into parser: inout HTTPResponseParser, streaming: BodyStreaming?,
        read: () throws(HTTPError) -> [UInt8]
    ) throws(HTTPError) {
        var sink: (any HTTPBodySink)?
        var chosen = false
        while true {
            let chunk = try read()
            let complete: Bool
            if chunk.isEmpty { try parser.finish(); complete = true } else { complete = try parser.feed(chunk) }
            if let streaming, parser.hasHead {
                if !chosen {
                    chosen = true
                    sink = try streaming.choose(parser)
                }
                if let sink {
                    let piece = parser.takeBody()
                    if !piece.isEmpty { try streaming.write(piece, to: sink) }
                }
            }
            if complete { return }
        }
    }

    /// Asks the proxy for a tunnel to the target and checks its answer.
    private static func openTunnel(
        socket: SocketConnection, proxy: ProxySettings, target: RequestTarget,
        limits: HTTPResponseParser.Limits
    ) throws(HTTPError) {
        var request = "CONNECT \(target.authority) HTTP/1.1\r\nHost: \(target.authority)\r\n"
        if let auth = proxy.authorization { request += "Proxy-Authorization: \(auth)\r\n" }
        request += "\r\n"
        try socket.sendAll(Array(request.utf8))
        var parser = HTTPResponseParser(limits: limits, requestMethod: "CONNECT")
        // Read one byte at a time: the TLS server never speaks first, but bytes past the proxy's answer
        // must still never be swallowed by this parser.
        while !parser.isComplete {
            let byte = try socket.receive(max: 1)
            if byte.isEmpty {
                do { try parser.finish() } catch { throw .proxyFailure(reason: "the proxy closed the connection") }
                break
            }
            do { try parser.feed(byte) } catch { throw .proxyFailure(reason: "malformed proxy answer: \(error)") }
        }
        guard let message = parser.message, (200...299).contains(message.status) else {
            let status = parser.message.map { "\($0.status) \($0.reason)" } ?? "no answer"
            throw .proxyFailure(reason: "CONNECT \(target.authority) refused: \(status)")
        }
    }
}

/// A streamed exchange's sink choice and the first error a caller's chooser or sink threw (kept
/// here because the I/O thread only carries `HTTPError`; `HTTPClient` rethrows it as it was).
final class BodyStreaming: @unchecked Sendable {
    typealias Chooser = @Sendable (_ status: Int, _ headers: [(name: String, value: String)]) throws -> (any HTTPBodySink)?
    private let chooser: Chooser
    // Written on the I/O thread, read by the caller only after that thread has finished.
    private(set) var callerError: (any Error)?

    init(_ chooser: @escaping Chooser) { self.chooser = chooser }

    func choose(_ parser: HTTPResponseParser) throws(HTTPError) -> (any HTTPBodySink)? {
        guard let head = parser.head else { return nil }
        do { return try chooser(head.status, head.headers) } catch { callerError = error; throw .cancelled }
    }

    func write(_ bytes: [UInt8], to sink: any HTTPBodySink) throws(HTTPError) {
        do { try sink.write(bytes[...]) } catch { callerError = error; throw .cancelled }
    }
}
