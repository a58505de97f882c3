import Glibc
import Testing

/// Issue 31: a port chosen for a server that cannot bind port 0 itself (tinyproxy) must stay held
/// until that server has it; a number that was free a moment ago is taken by parallel tests.
@Suite struct PortReservationTests {
    /// A fresh IPv4 socket bound to 127.0.0.1:`port` (and listening when asked); the socket or the errno.
    static func bindSocket(port: Int, reuseAddress: Bool, listening: Bool = false) -> Result<Int32, Errno> {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        var on: Int32 = 1
        if reuseAddress { _ = setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &on, socklen_t(MemoryLayout<Int32>.size)) }
        var addr = sockaddr_in()
        addr.sin_family = sa_family_t(AF_INET)
        addr.sin_port = UInt16(port).bigEndian
        addr.sin_addr.s_addr = UInt32(0x7F00_0001).bigEndian
        let rc = withUnsafePointer(to: &addr) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        if rc != 0 || (listening && listen(fd, 4) != 0) {
            let e = errno
            close(fd)
            return .failure(Errno(e))
        }
        return .success(fd)
    }

    struct Errno: Error, Equatable { let code: Int32; init(_ code: Int32) { self.code = code } }

    @Test func aPortHandedToAServerIsHeldUntilTheServerHasIt() throws {
        let held = try PortReservation(sharedWithServer: true)
        let other = Self.bindSocket(port: held.port, reuseAddress: false)
        if case .success(let fd) = other { close(fd) }
        #expect(
            other == .failure(Errno(EADDRINUSE)),
            "port \(held.port) was free for any other socket between the choice and the server's bind")
    }

    /// tinyproxy's own bind (SO_REUSEADDR, then listen) gets the held port, and from then on no one else does.
    @Test func theServerItIsHeldForCanListenOnIt() throws {
        let held = try PortReservation(sharedWithServer: true)
        let server = try Self.bindSocket(port: held.port, reuseAddress: true, listening: true).get()
        defer { close(server) }
        #expect(Self.bindSocket(port: held.port, reuseAddress: true) == .failure(Errno(EADDRINUSE)))
        #expect(TestEnvironment.waitForPort(held.port, timeout: .seconds(5)))
    }

    @Test func aClosedPortRefusesConnectionsWhileHeld() throws {
        let closed = try PortReservation(sharedWithServer: false)
        #expect(!TestEnvironment.waitForPort(closed.port, timeout: .milliseconds(100)))
        #expect(Self.bindSocket(port: closed.port, reuseAddress: true, listening: true) == .failure(Errno(EADDRINUSE)))
    }
}
