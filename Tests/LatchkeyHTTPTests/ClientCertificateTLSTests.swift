import FoundationEssentials
import Testing

@testable import LatchkeyHTTP

/// Presenting a client identity to a real `openssl s_server` that requires one (`-Verify 1
/// -verify_return_error`, trusting only the client CA). Its `-www` page prints the certificate the
/// client sent, so each success also proves which certificate arrived.
@Suite struct ClientCertificateTLSTests {
    private func ready() -> Bool { TestEnvironment.require(["openssl", "python3"]) }

    /// A server for DNS:localhost (the test server PKI) that requires a client certificate from `clientCA`.
    private static func server(clientCA: String? = nil) throws -> OpenSSLServer {
        let (cert, key) = try Fixtures.pki.get().cert("localhost")
        let ca = try clientCA ?? ClientPKI.shared.get().caFile
        return try OpenSSLServer(["-cert", cert, "-key", key, "-Verify", "1", "-verify_return_error", "-CAfile", ca, "-www"])
    }

    private static func client(
        _ identity: TLSClientIdentity?, proxy: ProxySettings? = nil,
        logger: (@Sendable (String) -> Void)? = nil
    ) throws -> HTTPClient {
        HTTPClient(
            configuration: .init(
                caFile: try Fixtures.pki.get().caFile, connectTimeout: 3, proxy: proxy,
                clientIdentity: identity, logger: logger))
    }

    private static func get(_ client: HTTPClient, _ server: OpenSSLServer) async throws -> String {
        let r = try await client.send(HTTPRequest(url: HTTPURL(string: "https://localhost:\(server.port)/")!, timeout: 15))
        #expect(r.status == 200)
        return String(decoding: r.body, as: UTF8.self)
    }

    @Test func serverReceivesTheRSAAndECCertificates() async throws {
        guard ready() else { return }
        let server = try await offPool { try Self.server() }
        let pki = try await ClientPKI.made()
        for (cert, key, subject) in [
            ("rsa.pem", "rsa.key", "CN=latchkey rsa client, O=Latchkey Tests"),
            ("ec.pem", "ec-sec1.key", "CN=latchkey ec client"),
            ("p384.pem", "p384.key", "CN=latchkey p384 client")
        ] {
            let page = try await Self.get(Self.client(try pki.identity(cert, key)), server)
            #expect(page.contains("Subject: \(subject)\n"), "\(cert): \(page.prefix(300))")
            #expect(!page.contains("no client certificate available"))
        }
    }

    @Test func intermediatesInTheChainAreSent() async throws {
        guard ready() else { return }
        // The server trusts only the client CA, so the leaf verifies only if the intermediate came with it.
        let server = try await offPool { try Self.server() }
        let identity = try await ClientPKI.made().identity("chain.pem", "rsa.key")
        #expect(try await Self.get(Self.client(identity), server).contains("Issuer: CN=Latchkey Client Intermediate"))
        let leafOnly = try await ClientPKI.made().identity("chain-leaf.pem", "rsa.key")
        let e = await httpError { try await Self.get(Self.client(leafOnly), server) }
        guard case .tlsFailure(let reason)? = e else { Issue.record("got \(String(describing: e))"); return }
        #expect(reason.contains("client certificate refused"), "\(reason)")
    }

    @Test func withoutAnIdentityTheHandshakeIsRefused() async throws {
        guard ready() else { return }
        let server = try await offPool { try Self.server() }
        let e = await httpError { try await Self.get(Self.client(nil), server) }
        guard case .tlsFailure(let reason)? = e else { Issue.record("got \(String(describing: e))"); return }
        #expect(reason.hasPrefix("client certificate required"), "\(reason)")
    }

    @Test func anUntrustedCertificateIsRefusedByTheServer() async throws {
        guard ready() else { return }
        // This server trusts the server-side test CA for clients, which did not issue our certificate.
        let server = try await offPool { try Self.server(clientCA: try Fixtures.pki.get().caFile) }
        let identity = try await ClientPKI.made().identity("rsa.pem", "rsa.key")
        let e = await httpError { try await Self.get(Self.client(identity), server) }
        guard case .tlsFailure(let reason)? = e else { Issue.record("got \(String(describing: e))"); return }
        #expect(reason.hasPrefix("client certificate refused by the server (alert 48)"), "\(reason)")  // unknown_ca
    }

    @Test func anIdentityIsHarmlessWhenTheServerDoesNotAsk() async throws {
        guard ready() else { return }
        let s = try await offPool { try Fixtures.tlsServer.get() }
        let identity = try await ClientPKI.made().identity("rsa.pem", "rsa.key")
        let r = try await Self.client(identity).send(HTTPRequest(url: s.url("/chunked"), timeout: 10))
        #expect(String(decoding: r.body, as: UTF8.self) == "hello chunked world")
    }

    @Test func oneIdentityServesEveryConnectionOfConcurrentClients() async throws {
        guard ready() else { return }
        // The threaded scripted server, so the handshakes (and the key's signatures) really overlap;
        // s_server serves one connection at a time.
        let server = try await offPool { () throws -> SpawnedProcess in
            let (cert, key) = try Fixtures.pki.get().cert("localhost")
            return try SpawnedProcess([
                "python3", TestEnvironment.harnessDirectory + "/test_server.py", "--cert", cert, "--key", key,
                "--client-ca", try ClientPKI.shared.get().caFile
            ])
        }
        defer { server.terminate() }
        let port = try await offPool { try server.readLine(timeout: 10) }
        let url = HTTPURL(string: "https://localhost:\(port)/peer")!
        let pki = try await ClientPKI.made()
        let rsa = try Self.client(try pki.identity("rsa.pem", "rsa.key"))
        let ec = try Self.client(try pki.identity("ec.pem", "ec.key"))
        let answers = try await withThrowingTaskGroup(of: (Bool, String).self) { group in
            for i in 0..<16 {
                let client = i % 2 == 0 ? rsa : ec
                group.addTask {
                    (i % 2 == 0, String(decoding: try await client.send(HTTPRequest(url: url, timeout: 20)).body, as: UTF8.self))
                }
            }
            return try await group.reduce(into: []) { $0.append($1) }
        }
        #expect(answers.count == 16)
        for (isRSA, peer) in answers { #expect(peer == (isRSA ? "latchkey rsa client" : "latchkey ec client")) }
        let e = await httpError { try await Self.client(nil).send(HTTPRequest(url: url, timeout: 10)) }
        guard case .tlsFailure(let reason)? = e else { Issue.record("got \(String(describing: e))"); return }
        #expect(reason.hasPrefix("client certificate required"), "\(reason)")
    }

    @Test func throughAProxyTheIdentityGoesToTheOrigin() async throws {
        guard ready(), TestEnvironment.require(["tinyproxy"]) else { return }
        let server = try await offPool { try Self.server() }
        let proxy = try await offPool { try ProxyTests.startTinyproxy() }
        defer { proxy.process.terminate() }
        let identity = try await ClientPKI.made().identity("ec.pem", "ec.key")
        let page = try await Self.get(Self.client(identity, proxy: ProxySettings(host: "127.0.0.1", port: proxy.port)), server)
        #expect(page.contains("Subject: CN=latchkey ec client"))
        #expect(TestEnvironment.readFile(proxy.log).contains("CONNECT localhost:\(server.port)"))
    }

    @Test func verboseLogNeverShowsKeyMaterial() async throws {
        guard ready() else { return }
        let server = try await offPool { try Self.server() }
        let pki = try await ClientPKI.made()
        let lines = LogCollector()
        let identity = try pki.identity("rsa.pem", "rsa.key")
        _ = try await Self.get(Self.client(identity, logger: { lines.append($0) }), server)
        // And a failed handshake's error line.
        let other = try await offPool { try Self.server(clientCA: try Fixtures.pki.get().caFile) }
        _ = await httpError { try await Self.get(Self.client(identity, logger: { lines.append($0) }), other) }
        let log = lines.all.joined(separator: "\n")
        #expect(log.contains("! TLS failure: client certificate refused"))
        #expect(!log.contains("PRIVATE KEY"))
        #expect(!containsKeyLine(log, key: TestEnvironment.readFile(pki.path("rsa.key"))))
    }
}
