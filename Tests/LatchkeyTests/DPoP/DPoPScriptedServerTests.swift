import Latchkey
import LatchkeyCrypto
import LatchkeyHTTP
import LatchkeyJOSE
import LatchkeyTestSupport
import LatchkeyTesting
import Testing

/// `AuthorizedTransport` against the scripted server's DPoP resource (Tests/Harness/scripted_idp.py),
/// which verifies each proof for real: the resource nonce is taken up once, and a second
/// challenge stops the client.
@Suite("DPoP resource nonces against the scripted server", .serialized)
struct DPoPScriptedServerTests {
    func signedIn(_ idp: ScriptedIdP) async throws -> (Session, HTTPClient) {
        let client = HTTPClient(configuration: .init())
        let configuration = ClientConfiguration(issuer: idp.issuer, clientID: "lib-test", scopes: ["openid"])
        let session = Session(configuration: configuration, store: MemoryTokenStore(), transport: client, random: try SecureRandom())
        let saved = try await session.signIn(flow: .device, timeout: 30)
        #expect(saved.token.tokenType == "DPoP" && saved.dpop != nil)
        return (session, client)
    }

    static func resourceEvents(_ idp: ScriptedIdP) throws -> [String] {
        try idp.logLines().map { try JSONParser().parseObject(Array($0.utf8)) }
            .filter { $0["path"] == .string("/resource") }.compactMap { $0["event"]?.stringValue }
    }

    @Test func theResourceNonceIsRetriedOnceWithTheServersNonce() async throws {
        let idp = try ScriptedIdP(scenario: "dpop-nonce-resource", arguments: ["--interval", "1", "--approve-after", "1"])
        defer { idp.stop() }
        let (session, client) = try await signedIn(idp)
        let resource = try HTTPURL.parse(idp.issuer + "/resource")
        let transport = AuthorizedTransport(base: client, source: session, allowed: [resource])
        let response = try await transport.send(HTTPRequest(url: resource, timeout: 10))
        #expect(response.status == 200)
        #expect(try Self.resourceEvents(idp) == ["dpop-use_dpop_nonce", "resource"])
        // The nonce is remembered: the next call is accepted at once.
        #expect(try await transport.send(HTTPRequest(url: resource, timeout: 10)).status == 200)
        #expect(try Self.resourceEvents(idp) == ["dpop-use_dpop_nonce", "resource", "resource"])
    }

    @Test func aSecondResourceChallengeIsAProtocolViolation() async throws {
        let idp = try ScriptedIdP(scenario: "dpop-nonce-twice-resource", arguments: ["--interval", "1", "--approve-after", "1"])
        defer { idp.stop() }
        let (session, client) = try await signedIn(idp)
        let resource = try HTTPURL.parse(idp.issuer + "/resource")
        let transport = AuthorizedTransport(base: client, source: session, allowed: [resource])
        do {
            _ = try await transport.send(HTTPRequest(url: resource, timeout: 10))
            Issue.record("accepted")
        } catch let error as LatchkeyError {
            guard case .tokenBinding(.nonceRequestedTwice(.resource)) = error else { Issue.record("got \(error)"); return }
            #expect(error.category == .protocolViolation)
        }
        #expect(try Self.resourceEvents(idp) == ["dpop-use_dpop_nonce", "dpop-use_dpop_nonce"])
    }
}
