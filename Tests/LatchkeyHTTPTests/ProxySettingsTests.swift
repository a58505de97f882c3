import Testing

@testable import LatchkeyHTTP

@Suite struct ProxySettingsTests {
    @Test func parsesProxyURLWithCredentials() throws {
        let p = try #require(ProxySettings.parse(proxyURL: "http://al%40ice:p%3Ass@proxy.corp:3128/"))
        #expect(p.host == "proxy.corp")
        #expect(p.port == 3128)
        #expect(p.username == "al@ice")
        #expect(p.password == "p:ss")
        #expect(p.authorization == "Basic YWxAaWNlOnA6c3M=")
    }

    @Test func defaultsAndRejections() throws {
        let bare = try #require(ProxySettings.parse(proxyURL: "proxy.corp"))
        #expect(bare.port == 1080)
        #expect(bare.authorization == nil)
        let v6 = try #require(ProxySettings.parse(proxyURL: "http://[::1]:8080"))
        #expect(v6.host == "::1" && v6.port == 8080)
        #expect(ProxySettings.parse(proxyURL: "socks5://proxy:1080") == nil)
        #expect(ProxySettings.parse(proxyURL: "http://proxy:99999") == nil)
        #expect(ProxySettings.parse(proxyURL: "http://:8080") == nil)
    }

    @Test func environmentPrecedenceAndNoProxy() throws {
        let env = ["HTTPS_PROXY": "http://upper:1", "https_proxy": "http://lower:2", "NO_PROXY": ".example.com, internal ,[::1]"]
        let p = try #require(try ProxySettings.fromEnvironment(env))
        #expect(p.host == "lower")
        #expect(p.bypasses(host: "example.com"))
        #expect(p.bypasses(host: "login.EXAMPLE.com"))
        #expect(!p.bypasses(host: "notexample.com"))
        #expect(p.bypasses(host: "internal"))
        #expect(!p.bypasses(host: "internal.evil.com"))
        #expect(p.bypasses(host: "::1"))
        #expect(try ProxySettings.fromEnvironment(["NO_PROXY": "*"]) == nil)
        let star = try #require(try ProxySettings.fromEnvironment(["HTTPS_PROXY": "p:1", "no_proxy": "*"]))
        #expect(star.bypasses(host: "anything.at.all"))
    }
}

/// Issue 12: a proxy variable that names no usable `http://` proxy fails https requests instead of
/// being dropped (which sent them direct), as curl refuses it; NO_PROXY and plain http still apply.
@Suite struct UnusableProxyTests {
    /// A value that must be refused, and a part of it that must never appear in the error.
    static let unusable: [(value: String, secret: String?)] = [
        ("socks5://127.0.0.1:1080", nil),
        ("socks5h://127.0.0.1:1080", nil),
        ("https://127.0.0.1:3128", nil),
        ("http://alice:pa/ss@127.0.0.1:3128", "pa/ss"),
        ("http://alice:12/ss@127.0.0.1:3128", "alice:12"),
        ("http://:3128", nil),
        ("http://127.0.0.1:99999", nil),
        ("http://prox y:3128", nil)
    ]

    @Test func unusableProxyURLsDoNotParse() {
        for (value, _) in Self.unusable { #expect(ProxySettings.parse(proxyURL: value) == nil, "\(value)") }
    }

    @Test func eachRefusalSaysWhyWithoutQuotingTheURL() throws {
        let expected: [(String, ProxySettings.URLProblem)] = [
            ("socks5://127.0.0.1:1080", .unsupportedScheme("socks5")),
            ("HTTPS://proxy:3128", .unsupportedScheme("https")),
            ("http://alice:pa/ss@proxy:3128", .unencodedCredentials),
            ("alice:pa?ss@proxy:3128", .unencodedCredentials),
            ("http://:3128", .missingHost),
            ("http://proxy:0", .invalidPort),
            ("http://[::1", .invalidHost),
            ("1http://proxy", .malformedScheme)
        ]
        for (value, problem) in expected {
            #expect(throws: problem, "\(value)") { try ProxySettings.validated(proxyURL: value) }
        }
        let route = ProxyRoute.fromEnvironment(["https_proxy": "http://bob:s3/cret@proxy:3128", "HTTPS_PROXY": "http://proxy:3128"])
        #expect(route == .unusable(.unusableProxy(variable: "https_proxy", problem: .unencodedCredentials), noProxy: []))
        #expect(throws: HTTPError.self) { try ProxySettings.fromEnvironment(["HTTPS_PROXY": "socks5://proxy"]) }
        // A plus sign in credentials is a plus sign (URL userinfo), not a space (forms).
        #expect(ProxySettings.parse(proxyURL: "http://al+ice:p+ss@proxy:3128")?.password == "p+ss")
    }

    @Test func unusableProxyFailsHTTPSRequestsNamingTheVariable() async throws {
        guard TestEnvironment.require(["openssl", "python3"]) else { return }
        let s = try await offPool { try Fixtures.tlsServer.get() }
        let ca = try Fixtures.pki.get().caFile
        for variable in ["HTTPS_PROXY", "https_proxy"] {
            for (value, secret) in Self.unusable {
                let client = HTTPClient(configuration: .fromEnvironment([variable: value], caFile: ca))
                let e = await httpError { try await client.send(HTTPRequest(url: s.url("/length"), timeout: 10)) }
                let text = e.map { "\($0)" } ?? "no error: the request went direct"
                #expect(text.contains(variable), "\(variable)=\(value): \(text)")
                if let secret { #expect(!text.contains(secret), "\(text)") }
            }
        }
    }

    @Test func noProxyAndPlainHTTPAreUnaffected() async throws {
        guard TestEnvironment.require(["openssl", "python3"]) else { return }
        let tls = try await offPool { try Fixtures.tlsServer.get() }
        let plain = try await offPool { try Fixtures.plainServer.get() }
        let ca = try Fixtures.pki.get().caFile
        let bypassed = HTTPClient(
            configuration: .fromEnvironment(["HTTPS_PROXY": "socks5://127.0.0.1:1", "NO_PROXY": "localhost"], caFile: ca))
        #expect(try await bypassed.send(HTTPRequest(url: tls.url("/length"), timeout: 10)).status == 200)
        let http = HTTPClient(configuration: .fromEnvironment(["HTTPS_PROXY": "socks5://127.0.0.1:1"], caFile: ca))
        #expect(try await http.send(HTTPRequest(url: plain.url("/length"), timeout: 10)).status == 200)
    }
}
