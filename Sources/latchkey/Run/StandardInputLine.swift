import Glibc

/// Reads one line from stdin without blocking a concurrency thread: it polls, sleeping between
/// checks, so the wait can be cancelled (SIGINT) at any moment.
enum StandardInputLine {
    /// The next line without its line break; nil at end of input before any byte.
    static func read(limit: Int = 16_384) async throws -> String? {
        var line: [UInt8] = []
        while true {
            try Task.checkCancellation()
            var descriptor = pollfd(fd: 0, events: Int16(POLLIN), revents: 0)
            let ready = poll(&descriptor, 1, 0)
            if ready < 0 && errno != EINTR { return nil }
            if ready <= 0 {
                try await Task.sleep(nanoseconds: 100_000_000)
                continue
            }
            var byte: UInt8 = 0
            let n = Glibc.read(0, &byte, 1)
            if n < 0 && (errno == EINTR || errno == EAGAIN) { continue }
            if n <= 0 { return line.isEmpty ? nil : String(decoding: line, as: UTF8.self) }
            if byte == 0x0A {
                if line.last == 0x0D { line.removeLast() }
                return String(decoding: line, as: UTF8.self)
            }
            line.append(byte)
            if line.count > limit { return String(decoding: line, as: UTF8.self) }
        }
    }
}
