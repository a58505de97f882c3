import Glibc

/// A non-blocking TCP socket whose every wait is bounded by a deadline and interruptible by a
/// cancellation flag. mbedTLS's own `mbedtls_net_connect` blocks without a timeout, so connecting and
/// waiting are done here and mbedTLS gets this socket through its BIO callbacks (`TLSSession`).
final class SocketConnection {
    private(set) var fd: Int32
    private let cancellation: CancellationFlag
    /// The overall deadline for reads and writes on this connection.
    var deadline: Deadline
    /// Seconds reported in `.timedOut` when `deadline` passes.
    var timeoutSeconds: Double

    private init(fd: Int32, cancellation: CancellationFlag, deadline: Deadline, timeoutSeconds: Double) {
        self.fd = fd
        self.cancellation = cancellation
        self.deadline = deadline
        self.timeoutSeconds = timeoutSeconds
    }

    /// Wraps an already-connected non-blocking socket (an accepted loopback connection).
    convenience init(adopting fd: Int32, cancellation: CancellationFlag, deadline: Deadline, timeoutSeconds: Double) {
        self.init(fd: fd, cancellation: cancellation, deadline: deadline, timeoutSeconds: timeoutSeconds)
    }

    deinit { close() }

    /// Closes the socket (idempotent).
    func close() {
        if fd >= 0 {
            _ = Glibc.close(fd)
            fd = -1
        }
    }

    /// Resolves `host` and connects to the first address that answers before `connectDeadline`.
    /// With `loopbackOnly`, addresses outside 127.0.0.0/8 and ::1 are ignored (plain-HTTP rule).
    static func connect(
        host: String, port: Int, connectDeadline: Deadline, connectTimeout: Double,
        deadline: Deadline, timeout: Double, loopbackOnly: Bool,
        cancellation: CancellationFlag
    ) throws(HTTPError) -> SocketConnection {
        var hints = addrinfo()
        hints.ai_family = AF_UNSPEC
        hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
        hints.ai_protocol = Int32(IPPROTO_TCP)
        hints.ai_flags = AI_ADDRCONFIG | AI_NUMERICSERV
        var list: UnsafeMutablePointer<addrinfo>?
        let rc = getaddrinfo(host, String(port), &hints, &list)
        guard rc == 0, let first = list else { throw .dnsFailure(host: host) }
        defer { freeaddrinfo(first) }

        var lastError = "no usable address"
        var cursor: UnsafeMutablePointer<addrinfo>? = first
        while let ai = cursor {
            cursor = ai.pointee.ai_next
            guard let addr = ai.pointee.ai_addr else { continue }
            if loopbackOnly && !LoopbackAddress.isLoopback(addr) {
                lastError = "\(host) resolves to a non-loopback address"
                continue
            }
            if cancellation.isCancelled { throw .cancelled }
            let fd = socket(
                ai.pointee.ai_family, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue) | Int32(SOCK_NONBLOCK.rawValue), 0)
            if fd < 0 { lastError = errnoText(); continue }
            let conn = SocketConnection(
                fd: fd, cancellation: cancellation, deadline: connectDeadline,
                timeoutSeconds: connectTimeout)
            var one: Int32 = 1
            _ = setsockopt(fd, Int32(IPPROTO_TCP), TCP_NODELAY, &one, socklen_t(MemoryLayout<Int32>.size))
            if Glibc.connect(fd, addr, ai.pointee.ai_addrlen) != 0 {
                guard errno == EINPROGRESS else { lastError = errnoText(); continue }
                try conn.wait(events: Int16(POLLOUT))
                var soError: Int32 = 0
                var len = socklen_t(MemoryLayout<Int32>.size)
                _ = getsockopt(fd, SOL_SOCKET, SO_ERROR, &soError, &len)
                guard soError == 0 else { lastError = String(cString: strerror(soError)); continue }
            }
            conn.deadline = deadline
            conn.timeoutSeconds = timeout
            return conn
        }
        throw .connectFailed(host: host, port: port, reason: lastError)
    }

    /// Waits until `events` are ready, in short slices so cancellation is noticed promptly.
    func wait(events: Int16) throws(HTTPError) {
        while true {
            if cancellation.isCancelled { throw .cancelled }
            let remaining = deadline.remainingMilliseconds
            if remaining == 0 { throw .timedOut(after: timeoutSeconds) }
            var pfd = pollfd(fd: fd, events: events, revents: 0)
            let rc = poll(&pfd, 1, min(remaining, 100))
            if rc < 0 {
                if errno == EINTR { continue }
                throw .ioFailure(reason: "poll: \(errnoText())")
            }
            if rc > 0 { return }  // ready, or an error/hangup that the next call will report
        }
    }

    /// Sends all of `bytes` before the deadline.
    func sendAll(_ bytes: [UInt8]) throws(HTTPError) {
        var offset = 0
        while offset < bytes.count {
            let n = try send(bytes, offset: offset)
            offset += n
        }
    }

    private func send(_ bytes: [UInt8], offset: Int) throws(HTTPError) -> Int {
        let result: Result<Int, HTTPError> = bytes.withUnsafeBytes { raw in
            Result { () throws(HTTPError) -> Int in try send(UnsafeRawBufferPointer(rebasing: raw[offset...])) }
        }
        return try result.get()
    }

    /// Sends some bytes (at least one) before the deadline; returns how many.
    func send(_ raw: UnsafeRawBufferPointer) throws(HTTPError) -> Int {
        while true {
            let n = Glibc.send(fd, raw.baseAddress, raw.count, Int32(MSG_NOSIGNAL))
            if n >= 0 { return n }
            switch errno {
            case EAGAIN, EWOULDBLOCK: try wait(events: Int16(POLLOUT))
            case EINTR: continue
            default: throw .ioFailure(reason: "send: \(errnoText())")
            }
        }
    }

    /// Receives up to `buffer.count` bytes before the deadline; 0 means the peer closed.
    func receive(_ buffer: UnsafeMutableRawBufferPointer) throws(HTTPError) -> Int {
        while true {
            let n = recv(fd, buffer.baseAddress, buffer.count, 0)
            if n >= 0 { return n }
            switch errno {
            case EAGAIN, EWOULDBLOCK: try wait(events: Int16(POLLIN))
            case EINTR: continue
            default: throw .ioFailure(reason: "recv: \(errnoText())")
            }
        }
    }

    /// Receives into a fresh array of at most `max` bytes; empty means the peer closed.
    func receive(max: Int) throws(HTTPError) -> [UInt8] {
        var out = [UInt8](repeating: 0, count: max)
        let result: Result<Int, HTTPError> = out.withUnsafeMutableBytes { raw in
            Result { () throws(HTTPError) -> Int in try receive(raw) }
        }
        let n = try result.get()
        out.removeLast(max - n)
        return out
    }
}

func errnoText() -> String { ErrnoText.describe(errno) }
