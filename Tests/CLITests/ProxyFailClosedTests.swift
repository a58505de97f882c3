import Glibc
import LatchkeyTestSupport
import Testing

/// Issue 12: a proxy variable latchkey cannot use fails the command (exit 6) instead of being
/// dropped, which sent every request straight to the server. curl refuses such settings too.
@Suite("latchkey binary: unusable proxy settings fail closed")
struct ProxyFailClosedTests {
    /// A proxy setting that must be refused, the variable the message must name, and a secret
    /// from it that must never be printed.
    struct Case: Sendable, CustomStringConvertible {
        let variable: String
        let value: String
        let secret: String?
        var description: String { "\(variable)=\(value)" }
    }

    static let cases: [Case] = [
        Case(variable: "HTTPS_PROXY", value: "socks5://127.0.0.1:1", secret: nil),
        Case(variable: "https_proxy", value: "https://127.0.0.1:1", secret: nil),
        Case(variable: "HTTPS_PROXY", value: "http://alice:pa/ss@127.0.0.1:1", secret: "pa/ss"),
        Case(variable: "HTTPS_PROXY", value: "http://alice:12/ss@127.0.0.1:1", secret: "alice:12"),
        Case(variable: "HTTPS_PROXY", value: "http://127.0.0.1:99999", secret: nil)
    ]

    /// The environment for `value` in `variable` and no other proxy setting from outside.
    static func environment(_ c: Case, noProxy: String = "") -> [String: String] {
        var env = [
            "https_proxy": "", "HTTPS_PROXY": "", "NO_PROXY": noProxy, "no_proxy": "",
            "ALL_PROXY": "", "all_proxy": ""
        ]
        env[c.variable] = c.value
        return env
    }

    @Test(arguments: cases)
    func unusableProxyExitsSixAndSendsNothing(_ c: Case) throws {
        let issuer = try SilentIssuer()
        defer { issuer.close() }
        try withCLI(Self.environment(c)) { cli, _ in
            let (result, connections) = try issuer.run(cli, ["discover", "--issuer", issuer.url])
            #expect(result.exitCode == 6, "\(result)")
            #expect(connections == 0, "the request went straight to the issuer")
            #expect(result.stdout.isEmpty, "\(result)")
            expectErrorLines(result)
            let first = result.stderrText.split(separator: "\n").first.map(String.init) ?? ""
            #expect(first.contains(c.variable), "\(first)")
            if let secret = c.secret { #expect(!result.stderrText.contains(secret), "\(result.stderrText)") }
        }
    }

    /// As in curl, a host in NO_PROXY is reached directly whatever the proxy variable says.
    @Test func noProxyStillBypassesAnUnusableProxy() throws {
        let issuer = try SilentIssuer()
        defer { issuer.close() }
        try withCLI(Self.environment(Self.cases[0], noProxy: "127.0.0.1")) { cli, _ in
            let (result, connections) = try issuer.run(cli, ["discover", "--issuer", issuer.url])
            #expect(connections >= 1, "\(result)")
            #expect(result.exitCode == 6, "\(result)")
            #expect(!result.stderrText.contains("HTTPS_PROXY"), "\(result.stderrText)")
        }
    }
}

/// A TCP listener on 127.0.0.1 that counts the connections it gets and closes each at once, so a
/// client that went direct fails fast instead of waiting out its TLS handshake.
private struct SilentIssuer {
    let fd: Int32
    let port: Int
    var url: String { "https://127.0.0.1:\(port)" }

    init() throws {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        var addr = sockaddr_in()
        addr.sin_family = sa_family_t(AF_INET)
        addr.sin_addr.s_addr = UInt32(0x7F00_0001).bigEndian
        let bound = withUnsafePointer(to: &addr) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard fd >= 0, bound == 0, listen(fd, 16) == 0 else { throw ListenError.failed(errno: errno) }
        _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK)
        var len = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafeMutablePointer(to: &addr) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &len) }
        }
        self.fd = fd
        port = Int(UInt16(bigEndian: addr.sin_port))
    }

    /// Runs the command, accepting (and closing) connections until it exits; returns how many came.
    func run(_ cli: LatchkeyCommand, _ arguments: [String]) throws -> (ProcessResult, Int) {
        let child = try cli.start(arguments)
        var connections = 0
        let started = timespec.now
        while child.isRunning, timespec.now - started < 60 {
            connections += acceptAll()
            usleep(20_000)
        }
        let result = child.waitForExit(timeout: .seconds(5))
        return (result, connections + acceptAll())
    }

    private func acceptAll() -> Int {
        var n = 0
        while true {
            let c = accept(fd, nil, nil)
            if c < 0 { return n }
            Glibc.close(c)
            n += 1
        }
    }

    func close() { Glibc.close(fd) }
}

private enum ListenError: Error {
    case failed(errno: Int32)
}

private extension timespec {
    static var now: Double {
        var ts = timespec()
        clock_gettime(CLOCK_MONOTONIC, &ts)
        return Double(ts.tv_sec) + Double(ts.tv_nsec) / 1e9
    }
}
