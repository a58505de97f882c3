import Testing

@testable import LatchkeyHTTP

/// The two scheme mistakes a person makes with an issuer URL (`http://` on a TLS port, `https://` on
/// a plain port) are named as such, not as a generic network failure.
@Suite struct SchemeMismatchTests {
    private func ready() -> Bool { TestEnvironment.require(["openssl", "python3"]) }

    @Test func plainHTTPToATLSPortSaysTheServerSpeaksTLS() async throws {
        guard ready() else { return }
        let s = try await offPool { try Fixtures.tlsServer.get() }
        let url = HTTPURL(string: "http://127.0.0.1:\(s.port)/length")!
        let e = await httpError { try await Fixtures.client().send(HTTPRequest(url: url, timeout: 10)) }
        guard case .tlsExpected(let host, let port)? = e else { Issue.record("got \(String(describing: e))"); return }
        #expect(host == "127.0.0.1" && port == s.port)
        #expect(e?.description == "cannot talk to 127.0.0.1:\(s.port): the server speaks TLS here: use https://")
    }

    @Test func tlsToAPlainPortSaysTheServerDoesNotSpeakTLS() async throws {
        guard ready() else { return }
        let s = try await offPool { try Fixtures.plainServer.get() }
        let url = HTTPURL(string: "https://localhost:\(s.port)/length")!
        let e = await httpError { try await Fixtures.client().send(HTTPRequest(url: url, timeout: 10)) }
        guard case .tlsNotSpoken(let host, let port)? = e else { Issue.record("got \(String(describing: e))"); return }
        #expect(host == "localhost" && port == s.port)
        #expect(e?.description == "cannot talk to localhost:\(s.port): the server does not speak TLS here (it answered in plain text)")
    }

    /// A plain server that closes without answering is still an I/O failure: only a TLS answer to
    /// the probe makes it `tlsExpected`.
    @Test func aPlainServerThatHangsUpIsNotCalledTLS() async throws {
        guard ready() else { return }
        let s = try await offPool { try Fixtures.plainServer.get() }
        let e = await httpError { try await Fixtures.client().send(HTTPRequest(url: s.url("/truncated"), timeout: 10)) }
        if case .tlsExpected? = e { Issue.record("a plain server was called TLS: \(String(describing: e))") }
        #expect(e != nil)
    }
}
