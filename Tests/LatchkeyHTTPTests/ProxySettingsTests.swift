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
        let p = try #require(ProxySettings.fromEnvironment(env))
        #expect(p.host == "lower")
        #expect(p.bypasses(host: "example.com"))
        #expect(p.bypasses(host: "login.EXAMPLE.com"))
        #expect(!p.bypasses(host: "notexample.com"))
        #expect(p.bypasses(host: "internal"))
        #expect(!p.bypasses(host: "internal.evil.com"))
        #expect(p.bypasses(host: "::1"))
        #expect(ProxySettings.fromEnvironment(["NO_PROXY": "*"]) == nil)
        let star = try #require(ProxySettings.fromEnvironment(["HTTPS_PROXY": "p:1", "no_proxy": "*"]))
        #expect(star.bypasses(host: "anything.at.all"))
    }
}
