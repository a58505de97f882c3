import Glibc
import Synchronization

/// Receives the authorization response of a loopback redirect (RFC 8252 §7.3): listens on 127.0.0.1 on
/// an ephemeral (or given) port, accepts the single `GET <path>?…`, answers a page saying the window can
/// be closed, answers 404 to anything else (the browser's favicon request, say), and closes.
///
/// The page echoes nothing from the request, and is sent with `no-store` and `no-referrer`, so the code
/// in the URL is not cached or leaked onward.
package final class LoopbackRedirectListener: Sendable {
    /// The bound port, to build the redirect URI.
    package let port: UInt16
    private let socketFD: Mutex<Int32>

    /// The loopback address bound, as written in the redirect URI (`127.0.0.1`, `[::1]`).
    package let host: String

    /// Binds `host`:`port` (0 picks a free ephemeral port) and starts listening. `host` is the
    /// loopback address the redirect URI names (`localhost` binds 127.0.0.1): the listener is
    /// bound where the browser will be sent, and never to a non-loopback address.
    package init(host: String = "127.0.0.1", port: UInt16 = 0) throws(HTTPError) {
        var literal = host.lowercased()
        if literal.hasPrefix("["), literal.hasSuffix("]") { literal = String(literal.dropFirst().dropLast()) }
        if literal == "localhost" || literal == "localhost." { literal = "127.0.0.1" }
        guard LoopbackAddress.isLoopbackHost(literal) else {
            throw .connectFailed(host: host, port: Int(port), reason: "not a loopback address")
        }
        var v4 = in_addr()
        var v6 = in6_addr()
        let isV4 = inet_pton(AF_INET, literal, &v4) == 1
        guard isV4 || inet_pton(AF_INET6, literal, &v6) == 1 else {
            throw .connectFailed(host: host, port: Int(port), reason: "not an IP address")
        }
        let family = isV4 ? AF_INET : AF_INET6
        let fd = socket(family, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue) | Int32(SOCK_NONBLOCK.rawValue), 0)
        guard fd >= 0 else { throw .connectFailed(host: literal, port: Int(port), reason: errnoText()) }
        var one: Int32 = 1
        _ = setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, socklen_t(MemoryLayout<Int32>.size))
        var storage = sockaddr_storage()
        let length: socklen_t
        if isV4 {
            var addr = sockaddr_in()
            addr.sin_family = sa_family_t(AF_INET)
            addr.sin_port = port.bigEndian
            addr.sin_addr = v4
            withUnsafeBytes(of: addr) { src in withUnsafeMutableBytes(of: &storage) { $0.copyMemory(from: src) } }
            length = socklen_t(MemoryLayout<sockaddr_in>.size)
        } else {
            var addr = sockaddr_in6()
            addr.sin6_family = sa_family_t(AF_INET6)
            addr.sin6_port = port.bigEndian
            addr.sin6_addr = v6
            withUnsafeBytes(of: addr) { src in withUnsafeMutableBytes(of: &storage) { $0.copyMemory(from: src) } }
            length = socklen_t(MemoryLayout<sockaddr_in6>.size)
        }
        let bound = withUnsafePointer(to: &storage) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, length) }
        }
        guard bound == 0, listen(fd, 8) == 0 else {
            let reason = errnoText()
            _ = Glibc.close(fd)
            throw .connectFailed(host: literal, port: Int(port), reason: "cannot listen: \(reason)")
        }
        var actual = sockaddr_storage()
        var len = socklen_t(MemoryLayout<sockaddr_storage>.size)
        _ = withUnsafeMutablePointer(to: &actual) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &len) }
        }
        // sin_port and sin6_port sit at the same offset (2) in both layouts.
        let portBytes = withUnsafeBytes(of: actual) { UInt16($0[2]) << 8 | UInt16($0[3]) }
        self.port = portBytes
        self.host = isV4 ? literal : "[" + literal + "]"
        self.socketFD = Mutex(fd)
    }

    deinit { close() }

    /// `http://<host>:<port><path>`, the redirect URI to register and send.
    package func redirectURI(path: String = "/callback") -> String {
        "http://\(host):\(port)\(path)"
    }

    /// Stops listening (idempotent; `waitForRedirect` calls it when done).
    package func close() {
        socketFD.withLock { fd in
            if fd >= 0 { _ = Glibc.close(fd); fd = -1 }
        }
    }

    /// Waits for `GET <path>?query` whose parameters `accepting` approves, and returns them in order.
    /// Strays get 404; a request on the path that `accepting` refuses (a forged or stale `state`)
    /// gets a short 400 and is otherwise ignored, so any local user who finds the port cannot end
    /// the sign-in. Throws `.timedOut` after `timeout` seconds and `.cancelled` if the task is cancelled.
    package func waitForRedirect(
        path: String = "/callback", timeout: Double,
        accepting: @escaping @Sendable ([(String, String)]) -> Bool = { _ in true }
    )
        async throws -> [(String, String)]
    {
        let fd = socketFD.withLock { $0 }
        guard fd >= 0 else { throw HTTPError.ioFailure(reason: "listener already closed") }
        let flag = CancellationFlag()
        let deadline = Deadline(secondsFromNow: timeout)
        defer { close() }
        let parameters: [(String, String)] = try await withTaskCancellationHandler {
            try await DedicatedThread.run { () throws(HTTPError) -> [(String, String)] in
                try Self.acceptLoop(
                    listenFD: fd, path: path, deadline: deadline, timeout: timeout, cancellation: flag,
                    accepting: accepting)
            }
        } onCancel: {
            flag.cancel()
        }
        return parameters
    }

    /// The most connections waiting to send their request. When full, the newest is refused, never
    /// an older one: a flood of idle connections must not push out the browser's real one.
    static let maxPending = 16

    /// One browser connection whose request head is still arriving.
    private struct Pending {
        let connection: SocketConnection
        var head: [UInt8] = []
        let expires: Deadline
    }

    /// Serves connections side by side: browsers open speculative connections that never send a request,
    /// and one of those must not hold up the real redirect.
    private static func acceptLoop(
        listenFD: Int32, path: String, deadline: Deadline, timeout: Double,
        cancellation: CancellationFlag,
        accepting: @Sendable ([(String, String)]) -> Bool
    ) throws(HTTPError) -> [(String, String)] {
        var pending: [Pending] = []
        defer { pending.forEach { $0.connection.close() } }
        while true {
            if cancellation.isCancelled { throw .cancelled }
            let remaining = deadline.remainingMilliseconds
            if remaining == 0 { throw .timedOut(after: timeout) }
            pending.removeAll { p in
                if p.expires.remainingMilliseconds == 0 { p.connection.close(); return true }
                return false
            }
            var fds = [pollfd(fd: listenFD, events: Int16(POLLIN), revents: 0)]
            fds += pending.map { pollfd(fd: $0.connection.fd, events: Int16(POLLIN), revents: 0) }
            let rc = poll(&fds, nfds_t(fds.count), min(remaining, 100))
            if rc < 0 && errno != EINTR { throw .ioFailure(reason: "poll: \(errnoText())") }
            if rc <= 0 { continue }

            // Read from ready connections first (walk backwards so removal keeps indices valid).
            for i in stride(from: pending.count - 1, through: 0, by: -1) where fds[i + 1].revents != 0 {
                var chunk = [UInt8](repeating: 0, count: 2048)
                let n = recv(pending[i].connection.fd, &chunk, chunk.count, 0)
                if n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR) { continue }
                if n <= 0 { pending[i].connection.close(); pending.remove(at: i); continue }
                pending[i].head += chunk[..<n]
                let head = pending[i].head
                guard head.count > 16 * 1024 || head.ends(with: [0x0D, 0x0A, 0x0D, 0x0A]) || head.ends(with: [0x0A, 0x0A])
                else { continue }
                let connection = pending.remove(at: i).connection
                var (status, page, query) = route(head, path: path)
                var parameters: [(String, String)]?
                if let query {
                    let decoded = FormURLEncoding.decode(query)
                    if accepting(decoded) {
                        parameters = decoded
                    } else {
                        (status, page) = ("400 Bad Request", nil)
                    }
                }
                // The answer gets 2 s at most; a browser that does not read it loses it, not the redirect.
                connection.deadline = Deadline(secondsFromNow: 2)
                try? respond(connection, status: status, page: page)
                connection.close()
                if let parameters { return parameters }
            }

            if fds[0].revents != 0 {
                let client = accept(listenFD, nil, nil)
                if client >= 0 {
                    // Linux does not pass O_NONBLOCK on to accepted sockets; every wait must stay bounded.
                    _ = fcntl(client, F_SETFL, fcntl(client, F_GETFL) | O_NONBLOCK)
                    _ = fcntl(client, F_SETFD, FD_CLOEXEC)
                    let connection = SocketConnection(
                        adopting: client, cancellation: cancellation,
                        deadline: deadline, timeoutSeconds: timeout)
                    if pending.count >= maxPending { connection.close(); continue }
                    // Each connection gets at most 5 s (never past the overall deadline) to send its request.
                    pending.append(Pending(connection: connection, expires: deadline.earlier(Deadline(secondsFromNow: 5))))
                }
            }
        }
    }

    /// What to answer to a request head, and the query when it is the redirect.
    private static func route(_ head: [UInt8], path: String) -> (String, String?, String?) {
        if head.count > 16 * 1024 { return ("431 Request Header Fields Too Large", nil, nil) }
        let firstLine = head.prefix { $0 != 0x0D && $0 != 0x0A }
        let parts = firstLine.split(separator: 0x20)
        guard parts.count == 3, String(decoding: parts[0], as: UTF8.self) == "GET" else {
            return ("405 Method Not Allowed", nil, nil)
        }
        let target = String(decoding: parts[1], as: UTF8.self)
        let requestPath = target.prefix { $0 != "?" && $0 != "#" }
        guard requestPath == path else { return ("404 Not Found", nil, nil) }
        var query = ""
        if let q = target.firstIndex(of: "?") {
            query = String(target[target.index(after: q)...].prefix { $0 != "#" })
        }
        return (
            "200 OK",
            """
            <!DOCTYPE html><html><head><meta charset="utf-8"><title>Latchkey</title></head>
            <body><p>Sign-in response received. You can close this window and return to the terminal.</p></body></html>
            """, query
        )
    }

    private static func respond(_ connection: SocketConnection, status: String, page: String?) throws(HTTPError) {
        let body = Array((page ?? status).utf8)
        let type = page == nil ? "text/plain" : "text/html"
        let head =
            "HTTP/1.1 \(status)\r\nContent-Type: \(type); charset=utf-8\r\nContent-Length: \(body.count)\r\n"
            + "Cache-Control: no-store\r\nReferrer-Policy: no-referrer\r\nConnection: close\r\n\r\n"
        try connection.sendAll(Array(head.utf8) + body)
    }
}

private extension Array where Element == UInt8 {
    func ends(with suffix: [UInt8]) -> Bool {
        count >= suffix.count && Array(self[(count - suffix.count)...]) == suffix
    }
}
