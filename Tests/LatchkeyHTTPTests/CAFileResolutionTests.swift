import Testing
@testable import LatchkeyHTTP

@Suite struct CAFileResolutionTests {
    @Test func precedence() {
        // The program's own variable (the CLI's LATCHKEY_CA_FILE) arrives as `explicit`; the library knows none.
        let env = ["LATCHKEY_CA_FILE": "/l.pem", "SSL_CERT_FILE": "/s.pem"]
        #expect(HTTPClient.resolveCAFile(explicit: "/e.pem", environment: env) == "/e.pem")
        #expect(HTTPClient.resolveCAFile(explicit: nil, environment: env) == "/s.pem")
        #expect(HTTPClient.resolveCAFile(explicit: "", environment: ["SSL_CERT_FILE": "/s.pem"]) == "/s.pem")
    }

    /// A remembered default (the CLI profile's bundle from `login --ca-file`) is below the
    /// program's setting and `SSL_CERT_FILE`, and above the system bundle.
    @Test func aRememberedBundleIsTheDefault() {
        let env = ["SSL_CERT_FILE": "/s.pem"]
        #expect(HTTPClient.resolveCAFile(explicit: nil, environment: [:], remembered: "/r.pem") == "/r.pem")
        #expect(HTTPClient.resolveCAFile(explicit: "/e.pem", environment: env, remembered: "/r.pem") == "/e.pem")
        #expect(HTTPClient.resolveCAFile(explicit: nil, environment: env, remembered: "/r.pem") == "/s.pem")
        #expect(HTTPClient.resolveCAFile(explicit: "", environment: ["SSL_CERT_FILE": ""], remembered: "/r.pem") == "/r.pem")
        #expect(HTTPClient.Configuration.fromEnvironment([:], remembered: "/r.pem").caFile == "/r.pem")
        let none = HTTPClient.resolveCAFile(explicit: nil, environment: [:], remembered: "")
        #expect(none == nil || HTTPClient.systemCABundlePaths.contains(none!))
    }

    @Test func fallsBackToAReadableSystemBundle() {
        let found = HTTPClient.resolveCAFile(explicit: nil, environment: [:])
        if let found { #expect(HTTPClient.systemCABundlePaths.contains(found)) }
        else { #expect(HTTPClient.systemCABundlePaths.allSatisfy { !TestEnvironment.readFile($0).contains("BEGIN") }) }
    }

    @Test func missingBundleIsATLSFailure() async {
        let client = HTTPClient(configuration: .init(caFile: "/nonexistent/ca.pem"))
        let e = await httpError { try await client.send(HTTPRequest(url: .init(string: "https://localhost:1/")!, timeout: 2)) }
        guard case .tlsFailure(let reason)? = e else { Issue.record("got \(String(describing: e))"); return }
        #expect(reason.contains("/nonexistent/ca.pem"))
    }
}

@Suite struct CAChainCacheTests {
    @Test func reusesOneParseSequentiallyAndLendsDistinctCopiesConcurrently() async throws {
        guard TestEnvironment.require(["openssl"]) else { return }
        let pki = try await offPool { try Fixtures.pki.get() }
        let cache = CAChainCache(path: pki.caFile)
        let a = try cache.checkOut()
        cache.checkIn(a)
        let b = try cache.checkOut()
        #expect(a === b)
        // While `b` is lent out, a second borrower must get its own parse (EC verification mutates keys).
        let c = try cache.checkOut()
        #expect(b !== c)
        cache.checkIn(b)
        cache.checkIn(c)
    }
}
