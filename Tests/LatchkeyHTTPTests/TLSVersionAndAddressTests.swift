import FoundationEssentials
import Testing

@testable import LatchkeyHTTP

/// Which TLS versions the client speaks, what it says when a server speaks none of them, and how an
/// IP-address URL is verified (issue 38), against `openssl s_server` pinned to one version. With
/// mbedTLS 3.6 (the shipped binary) TLS 1.3 and 1.2 work and an IP-address host matches only an
/// iPAddress SAN; with Debian 12's 2.28 (a library build there) only 1.2 works and an IP-address host
/// never matches; each test states both.
@Suite struct TLSVersionAndAddressTests {
    private func ready() -> Bool { TestEnvironment.require(["openssl", "python3"]) }

    private static func server(_ version: String, cert name: String, extra: [String] = []) throws -> OpenSSLServer {
        let (cert, key) = try Fixtures.pki.get().cert(name)
        return try OpenSSLServer([version, "-cert", cert, "-key", key, "-www"] + extra)
    }

    private static func page(host: String, _ server: OpenSSLServer, client: HTTPClient? = nil) async throws -> String {
        let r = try await (client ?? Fixtures.client()).send(
            HTTPRequest(url: HTTPURL(string: "https://\(host):\(server.port)/")!, timeout: 15))
        #expect(r.status == 200)
        return String(decoding: r.body, as: UTF8.self)
    }

    @Test func aTLS13OnlyServer() async throws {
        guard ready() else { return }
        let server = try await offPool { try Self.server("-tls1_3", cert: "localhost") }
        if TLSSession.offersTLS13 {
            // s_server's page names the protocol of this very connection.
            #expect(try await Self.page(host: "localhost", server).contains("Protocol  : TLSv1.3"))
        } else {
            let e = await httpError { try await Self.page(host: "localhost", server) }
            guard case .tlsFailure(let reason)? = e else { Issue.record("got \(String(describing: e))"); return }
            #expect(reason.hasPrefix("protocol version: latchkey offers TLS 1.2 only"), "\(reason)")
            #expect(reason.contains("the server accepts none of them"), "\(reason)")
        }
    }

    @Test func aTLS12OnlyServer() async throws {
        guard ready() else { return }
        let server = try await offPool { try Self.server("-tls1_2", cert: "localhost") }
        #expect(try await Self.page(host: "localhost", server).contains("Protocol  : TLSv1.2"))
    }

    @Test func aTLS11OnlyServerIsRefusedAndTheMessageSaysWhatEachSideOffered() async throws {
        guard ready() else { return }
        // Debian's OpenSSL needs SECLEVEL=0 to offer TLS 1.1 at all.
        let server = try await offPool { try Self.server("-tls1_1", cert: "localhost", extra: ["-cipher", "DEFAULT@SECLEVEL=0"]) }
        let e = await httpError { try await Self.page(host: "localhost", server) }
        guard case .tlsFailure(let reason)? = e else { Issue.record("got \(String(describing: e))"); return }
        let offered = TLSSession.offersTLS13 ? "TLS 1.3 and 1.2" : "TLS 1.2 only"
        #expect(reason.hasPrefix("protocol version: latchkey offers \(offered)"), "\(reason)")
        #expect(!reason.contains("refused TLS 1.2"), "\(reason)")
    }

    /// https://127.0.0.1 against each certificate, over each version: only an iPAddress SAN for
    /// exactly this address is accepted, never a DNS name or a CN spelling it.
    @Test(arguments: ["-tls1_2", "-tls1_3"])
    func anIPAddressHostMatchesOnlyAnIPAddressSAN(version: String) async throws {
        guard ready() else { return }
        if version == "-tls1_3" && !TLSSession.offersTLS13 { return }  // aTLS13OnlyServer covers 2.28
        for (cert, accepted) in [("ip-only", true), ("ip-and-dns", true), ("ip-wrong", false), ("ip-as-dns", false), ("ip-as-cn", false)] {
            let server = try await offPool { try Self.server(version, cert: cert) }
            if accepted && TLSSession.matchesIPAddressSANs {
                let page = try await Self.page(host: "127.0.0.1", server)
                #expect(page.contains("Protocol  : TLSv1.\(version.suffix(1))"), "\(cert) \(version)")
            } else {
                let e = await httpError { try await Self.page(host: "127.0.0.1", server) }
                guard case .tlsFailure(let reason)? = e else { Issue.record("\(cert) \(version): got \(String(describing: e))"); continue }
                #expect(reason.contains("name mismatch"), "\(cert) \(version): \(reason)")
            }
        }
    }

    /// The name-mismatch cases by DNS name still hold over TLS 1.3: a certificate for 127.0.0.1 is
    /// not one for localhost.
    @Test func aDNSHostDoesNotMatchAnIPAddressSAN() async throws {
        guard ready() else { return }
        let server = try await offPool { try Self.server(TLSSession.offersTLS13 ? "-tls1_3" : "-tls1_2", cert: "ip-only") }
        let e = await httpError { try await Self.page(host: "localhost", server) }
        guard case .tlsFailure(let reason)? = e else { Issue.record("got \(String(describing: e))"); return }
        #expect(reason.contains("name mismatch"), "\(reason)")
    }

    /// mTLS over each version: the certificate is sent when asked, its absence and its refusal are
    /// told apart (TLS 1.3 refuses after the client's Finished, so that verdict arrives on the first read).
    @Test(arguments: ["-tls1_2", "-tls1_3"])
    func clientCertificatesOverEachVersion(version: String) async throws {
        guard ready(), TLSSession.offersTLS13 || version == "-tls1_2" else { return }
        let pki = try await ClientPKI.made()
        let (cert, key) = try Fixtures.pki.get().cert("localhost")
        let server = try await offPool {
            try OpenSSLServer([version, "-cert", cert, "-key", key, "-Verify", "1", "-verify_return_error", "-CAfile", pki.caFile, "-www"])
        }
        let ca = try Fixtures.pki.get().caFile
        func client(_ identity: TLSClientIdentity?) -> HTTPClient {
            HTTPClient(configuration: .init(caFile: ca, connectTimeout: 3, clientIdentity: identity))
        }
        for (c, k, subject) in [("rsa.pem", "rsa.key", "CN=latchkey rsa client"), ("ec.pem", "ec-sec1.key", "CN=latchkey ec client")] {
            let page = try await Self.page(host: "localhost", server, client: client(try pki.identity(c, k)))
            #expect(page.contains("Subject: \(subject)"), "\(version) \(c): \(page.prefix(300))")
            #expect(page.contains("Protocol  : TLSv1.\(version.suffix(1))"))
        }
        let none = await httpError { try await Self.page(host: "localhost", server, client: client(nil)) }
        guard case .tlsFailure(let reason)? = none else { Issue.record("\(version): got \(String(describing: none))"); return }
        #expect(reason.hasPrefix("client certificate required"), "\(version): \(reason)")

        let strict = try await offPool {
            try OpenSSLServer([version, "-cert", cert, "-key", key, "-Verify", "1", "-verify_return_error", "-CAfile", ca, "-www"])
        }
        let refused = await httpError {
            try await Self.page(host: "localhost", strict, client: client(try pki.identity("rsa.pem", "rsa.key")))
        }
        guard case .tlsFailure(let why)? = refused else { Issue.record("\(version): got \(String(describing: refused))"); return }
        #expect(why.hasPrefix("client certificate refused by the server"), "\(version): \(why)")
    }
}
