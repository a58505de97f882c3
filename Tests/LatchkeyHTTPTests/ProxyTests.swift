import FoundationEssentials
import Glibc
import Testing

@testable import LatchkeyHTTP

/// HTTPS through a real tinyproxy (CONNECT), with Basic proxy auth, and bypassed by NO_PROXY.
@Suite struct ProxyTests {
    struct Proxy: Sendable {
        let process: SpawnedProcess
        /// Held from before tinyproxy starts until the test ends, so no parallel test gets the port.
        let reservation: PortReservation
        var port: Int { reservation.port }
        let log: String
    }

    /// tinyproxy cannot listen on port 0 and say which port it got: it is given a port this process
    /// holds (PortReservation), which it can bind because both sockets have SO_REUSEADDR.
    static func startTinyproxy(auth: (String, String)? = nil) throws -> Proxy {
        let dir = TestEnvironment.makeTemporaryDirectory()
        let reservation = try PortReservation(sharedWithServer: true)
        var conf =
            "Port \(reservation.port)\nListen 127.0.0.1\nTimeout 10\nLogFile \"\(dir)/tinyproxy.log\"\nLogLevel Info\nMaxClients 20\n"
        if let auth { conf += "BasicAuth \(auth.0) \(auth.1)\n" }
        TestEnvironment.writeFile(dir + "/tinyproxy.conf", conf)
        let p = try SpawnedProcess(["tinyproxy", "-d", "-c", dir + "/tinyproxy.conf"], stderrPath: dir + "/stderr.log")
        guard TestEnvironment.waitForPort(reservation.port, timeout: .seconds(10)) else {
            p.terminate()
            throw SpawnError.failed(
                "tinyproxy did not listen on \(reservation.port) within 10 s: "
                    + TestEnvironment.readFile(dir + "/stderr.log") + TestEnvironment.readFile(dir + "/tinyproxy.log"))
        }
        return Proxy(process: p, reservation: reservation, log: dir + "/tinyproxy.log")
    }

    private func ready() -> Bool { TestEnvironment.require(["openssl", "python3", "tinyproxy"]) }

    @Test func httpsGoesThroughTheProxyFromTheEnvironment() async throws {
        guard ready() else { return }
        let s = try await offPool { try Fixtures.tlsServer.get() }
        let proxy = try await offPool { try Self.startTinyproxy() }
        defer { proxy.process.terminate() }
        let settings = try #require(try ProxySettings.fromEnvironment(["HTTPS_PROXY": "http://127.0.0.1:\(proxy.port)"]))
        let r = try await Fixtures.client(proxy: settings).send(HTTPRequest(url: s.url("/chunked"), timeout: 10))
        #expect(String(decoding: r.body, as: UTF8.self) == "hello chunked world")
        #expect(TestEnvironment.readFile(proxy.log).contains("CONNECT localhost:\(s.port)"))
    }

    @Test func noProxyBypasses() async throws {
        guard ready() else { return }
        let s = try await offPool { try Fixtures.tlsServer.get() }
        let proxy = try await offPool { try Self.startTinyproxy() }
        defer { proxy.process.terminate() }
        let settings = try #require(
            try ProxySettings.fromEnvironment(["https_proxy": "127.0.0.1:\(proxy.port)", "NO_PROXY": "example.org,localhost"]))
        let r = try await Fixtures.client(proxy: settings).send(HTTPRequest(url: s.url("/length"), timeout: 10))
        #expect(r.status == 200)
        #expect(!TestEnvironment.readFile(proxy.log).contains("CONNECT localhost"))
    }

    @Test func deadProxyIsAProxyFailureUnlessBypassed() async throws {
        guard ready() else { return }
        let s = try await offPool { try Fixtures.tlsServer.get() }
        // Bound and never listening, held to the end of the test: every connection to it is refused.
        let closed = try PortReservation(sharedWithServer: false)
        defer { withExtendedLifetime(closed) {} }
        let dead = ProxySettings(host: "127.0.0.1", port: closed.port)
        let e = await httpError { try await Fixtures.client(proxy: dead).send(HTTPRequest(url: s.url("/length"), timeout: 5)) }
        guard case .proxyFailure? = e else { Issue.record("got \(String(describing: e))"); return }
        var bypass = dead
        bypass.noProxy = ["localhost"]
        #expect(try await Fixtures.client(proxy: bypass).send(HTTPRequest(url: s.url("/length"), timeout: 5)).status == 200)
    }

    @Test func proxyBasicAuth() async throws {
        guard ready() else { return }
        let s = try await offPool { try Fixtures.tlsServer.get() }
        let proxy = try await offPool { try Self.startTinyproxy(auth: ("alice", "s3cret")) }
        defer { proxy.process.terminate() }
        let good = try #require(ProxySettings.parse(proxyURL: "http://alice:s3cret@127.0.0.1:\(proxy.port)"))
        #expect(try await Fixtures.client(proxy: good).send(HTTPRequest(url: s.url("/length"), timeout: 10)).status == 200)
        let bad = try #require(ProxySettings.parse(proxyURL: "http://alice:wrong@127.0.0.1:\(proxy.port)"))
        let e = await httpError { try await Fixtures.client(proxy: bad).send(HTTPRequest(url: s.url("/length"), timeout: 10)) }
        guard case .proxyFailure(let reason)? = e else { Issue.record("got \(String(describing: e))"); return }
        // tinyproxy answers a failed CONNECT auth with 401 (not 407); either way the tunnel is refused.
        #expect(reason.contains("refused: 401") || reason.contains("refused: 407"), "\(reason)")
    }
}
