import Glibc

/// A TCP port on 127.0.0.1 that nothing else gets while this value lives: a socket bound to it that
/// never listens. No test picks a port by binding port 0, closing and handing the number on; in that
/// gap a parallel test's port-0 bind or outgoing connection took it (tinyproxy "Could not create
/// listening sockets" in a fresh-clone CI run).
///
/// - `sharedWithServer: true` (for tinyproxy, which cannot listen on port 0 and report the port): the
///   socket has SO_REUSEADDR. Linux lets another SO_REUSEADDR socket bind and listen on a port whose
///   other sockets all have it and none listens, which is how tinyproxy binds; port-0 binds and the
///   kernel's choice of a source port for outgoing connections still skip a port with a bound
///   socket. So the port is the server's as soon as it listens, and nobody else's before.
/// - `sharedWithServer: false`: a port that is guaranteed closed for as long as it is held; a
///   connection to it is refused (ECONNREFUSED: a bound socket that is not listening gets none).
final class PortReservation: @unchecked Sendable {
    let port: Int
    private let fd: Int32

    init(sharedWithServer: Bool) throws {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { throw SpawnError.failed("socket: \(String(cString: strerror(errno)))") }
        var on: Int32 = 1
        if sharedWithServer, setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &on, socklen_t(MemoryLayout<Int32>.size)) != 0 {
            let e = errno
            close(fd)
            throw SpawnError.failed("SO_REUSEADDR: \(String(cString: strerror(e)))")
        }
        var addr = sockaddr_in()
        addr.sin_family = sa_family_t(AF_INET)
        addr.sin_addr.s_addr = UInt32(0x7F00_0001).bigEndian
        let bound = withUnsafePointer(to: &addr) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        var len = socklen_t(MemoryLayout<sockaddr_in>.size)
        let named = withUnsafeMutablePointer(to: &addr) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &len) }
        }
        guard bound == 0, named == 0 else {
            let e = errno
            close(fd)
            throw SpawnError.failed("bind 127.0.0.1:0: \(String(cString: strerror(e)))")
        }
        self.fd = fd
        port = Int(UInt16(bigEndian: addr.sin_port))
    }

    deinit { close(fd) }
}
