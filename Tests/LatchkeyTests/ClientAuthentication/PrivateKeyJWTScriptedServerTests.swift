import Latchkey
import LatchkeyCrypto
import LatchkeyHTTP
import LatchkeyJOSE
import LatchkeyTestSupport
import LatchkeyTesting
import Testing

/// `private_key_jwt` against the scripted server (Tests/Harness/scripted_idp.py), which verifies
/// every client assertion for real against the client's public key and refuses a jti it has seen.
@Suite("private_key_jwt against the scripted server", .serialized)
struct PrivateKeyJWTScriptedServerTests {
    /// A server playing `scenario` that knows the P-256 fixture's public key.
    static func server(_ scenario: String = "private-key-jwt") throws -> (ScriptedIdP, TemporaryDirectory) {
        let dir = try TemporaryDirectory(prefix: "latchkey-pkjwt-lib-")
        #expect(FileText.write(PEMFixtures.p256PublicKey, to: dir.path + "/client.pub", mode: 0o600))
        let idp = try ScriptedIdP(
            scenario: scenario,
            arguments: [
                "--interval", "1", "--approve-after", "1",
                "--client-public-key", dir.path + "/client.pub"
            ])
        return (idp, dir)
    }

    static func session(_ idp: ScriptedIdP, random: any RandomSource) -> Session {
        var configuration = ClientConfiguration(
            issuer: idp.issuer, clientID: "lib-device", scopes: ["openid"],
            authMethod: .privateKeyJWT)
        configuration.dpop = .never
        return Session(
            configuration: configuration, store: MemoryTokenStore(), transport: HTTPClient(configuration: .init()),
            random: random, clientKey: PrivateKeyJWTTests.MemoryKey(PEMFixtures.p256PKCS8))
    }

    static func assertions(_ idp: ScriptedIdP) throws -> [(path: String, log: JSONValue)] {
        try idp.logLines().map { try JSONParser().parseObject(Array($0.utf8)) }.compactMap { entry in
            guard let log = entry["client_assertion"], case .string(let path)? = entry["path"] else { return nil }
            return (path, log)
        }
    }

    @Test func theDefaultIssuerAudienceIsAcceptedWithEveryClaimChecked() async throws {
        let (idp, dir) = try Self.server()
        defer { idp.stop(); dir.remove() }
        let session = Self.session(idp, random: try SecureRandom())
        _ = try await session.signIn(flow: .device, timeout: 30)
        _ = try await session.refresh()
        let seen = try Self.assertions(idp)
        #expect(seen.map(\.path) == ["/device_authorization", "/token", "/token"])
        for (_, log) in seen {
            #expect(log["ok"] == .bool(true), "\(log)")
            #expect(log["aud"] == .string(idp.issuer) && log["iss"] == .string("lib-device") && log["sub"] == .string("lib-device"))
            #expect(
                log["checked"]?.arrayValue?.compactMap(\.stringValue)
                    == ["alg", "typ", "signature", "iss", "sub", "aud", "iat", "exp", "jti-fresh"], "\(log)")
        }
    }

    @Test func aReplayedJTIIsRefusedAndReportedAsAClientRefusal() async throws {
        let (idp, dir) = try Self.server()
        defer { idp.stop(); dir.remove() }
        // CountingRandom gives the same 16 bytes every time, so the poll repeats the device request's jti.
        let session = Self.session(idp, random: CountingRandom())
        do {
            _ = try await session.signIn(flow: .device, timeout: 30)
            Issue.record("a replayed jti was accepted")
        } catch {
            guard case .clientAuthenticationRefused(let refusal) = error else { Issue.record("got \(error)"); return }
            #expect(refusal.endpoint == .token && refusal.status == 401 && refusal.error?.code == "invalid_client")
            #expect(refusal.assertionAudience == .issuer)
        }
        let seen = try Self.assertions(idp)
        #expect(seen.map { $0.log["ok"] } == [.bool(true), .bool(false)])
        #expect(seen.last?.log["reason"] == .string("jti reused"))
    }
}
