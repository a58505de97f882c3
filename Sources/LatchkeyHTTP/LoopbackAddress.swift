import Glibc

/// Which hosts count as loopback: the only ones allowed over plain `http://` (RFC 8252 §8.3).
package enum LoopbackAddress {
    /// True for `localhost`, any 127.0.0.0/8 literal and `::1` (brackets allowed).
    package static func isLoopbackHost(_ host: String) -> Bool {
        var h = host.lowercased()
        if h.hasPrefix("["), h.hasSuffix("]") { h = String(h.dropFirst().dropLast()) }
        if h == "localhost" || h == "localhost." { return true }
        var v4 = in_addr()
        if inet_pton(AF_INET, h, &v4) == 1 {
            return UInt32(bigEndian: v4.s_addr) >> 24 == 127
        }
        var v6 = in6_addr()
        if inet_pton(AF_INET6, h, &v6) == 1 {
            return isLoopbackV6(v6)
        }
        return false
    }

    static func isLoopback(_ addr: UnsafePointer<sockaddr>) -> Bool {
        switch Int32(addr.pointee.sa_family) {
        case AF_INET:
            return addr.withMemoryRebound(to: sockaddr_in.self, capacity: 1) {
                UInt32(bigEndian: $0.pointee.sin_addr.s_addr) >> 24 == 127
            }
        case AF_INET6:
            return addr.withMemoryRebound(to: sockaddr_in6.self, capacity: 1) { isLoopbackV6($0.pointee.sin6_addr) }
        default:
            return false
        }
    }

    private static func isLoopbackV6(_ a: in6_addr) -> Bool {
        withUnsafeBytes(of: a) { bytes in
            bytes.prefix(15).allSatisfy { $0 == 0 } && bytes[15] == 1
        }
    }
}
