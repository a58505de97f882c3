import Glibc
import LatchkeyCrypto
import LatchkeyHTTP
import LatchkeyJOSE
import LatchkeyTestSupport
import LatchkeyTesting
import Testing

@testable import Latchkey
@testable import LatchkeyRegistration

/// Issue 33 §2: the module's operations throw `RegistrationError`, and what the layer below
/// reported stays inside it with its own type (`.latchkey`, `.storage`, `.profileInvalid`,
/// `.profileStorage`), so the CLI words it exactly as it words the core's errors.
@Suite struct RegistrationErrorTests {
    static let issuer = "https://idp.example/realm"
    static let document =
        #"{"issuer":"https://idp.example/realm","token_endpoint":"https://idp.example/realm/token","#
        + #""registration_endpoint":"https://idp.example/realm/register"}"#
    static let answer =
        #"{"client_id":"c1","registration_client_uri":"https://idp.example/realm/register/c1","#
        + #""registration_access_token":"rat"}"#

    @Test func aProfileFilesErrorComesBackAsTheCoresWithItsWording() {
        let problems: [ProfileFileError] = [
            .invalid(path: "/state/profiles/p.json", reason: "\"min_ttl\" must be a whole number of seconds ≥ 0"),
            .storage(.unsafePermissions(path: "/state/profiles/p.json", reason: "mode 0644"))
        ]
        for problem in problems {
            let error = RegistrationError(problem)
            #expect(error.profileFileError == problem)
            #expect(error.description == problem.description)
            #expect(error.code == "storage_error")
        }
        #expect(RegistrationError.storage(.passphraseRequired).profileFileError == nil)
        #expect(RegistrationError.notRegistered(profile: "p").profileFileError == nil)
    }

    @Test func theCoresErrorsCompareByCodeAndMessage() {
        let reset = RegistrationError.latchkey(.network(.ioFailure(reason: "connection reset by peer")))
        #expect(reset == .latchkey(.network(.ioFailure(reason: "connection reset by peer"))))
        #expect(reset != .latchkey(.network(.ioFailure(reason: "broken pipe"))))
        #expect(reset != .storage(.passphraseRequired))
        #expect(RegistrationError.storage(.passphraseRequired) == .storage(.passphraseRequired))
    }

    @Test func aBrokenConnectionIsTheCoresNetworkError() async throws {
        let clock = VirtualClock()
        let t = ScriptedTransport(clock: clock) { _, _ in throw HTTPError.ioFailure(reason: "connection reset by peer") }
        let client = RegistrationClient(issuer: Self.issuer, dialect: .rfc7591, transport: t, time: clock)
        let error = await #expect(throws: RegistrationError.self) {
            _ = try await client.create(ClientMetadata(), endpoint: Self.issuer + "/register", initialAccessToken: nil)
        }
        guard case .latchkey(.network(.ioFailure)) = error else {
            Issue.record("a broken connection became \(String(describing: error))")
            return
        }
    }

    @Test func aCheckpointsRefusalIsStorageAndTheCreateLeavesNothing() async throws {
        let dir = try TemporaryDirectory(prefix: "latchkey-registration-error-")
        defer { dir.remove() }
        let state = dir.path + "/state"
        let t = ScriptedTransport { request, _ in
            request.url.path.hasSuffix("/openid-configuration")
                ? Reply.json(200, Self.document) : request.method == "POST" ? Reply.json(201, Self.answer) : Reply.empty(404)
        }
        let full = TokenStoreError.io(path: "create-record", operation: "write", errno: ENOSPC)
        var registration = DeviceRegistration(
            stateDirectory: state, profile: "p", transport: t, random: try SecureRandom(), time: VirtualClock())
        registration.checkpoint = { point throws(TokenStoreError) in if point == "create-record" { throw full } }
        var request = DeviceRegistration.Request(issuer: Self.issuer, initialAccessToken: nil, clientName: "test", scopes: ["openid"])
        request.authMethod = ClientAuthMethod.none
        let immutable = request, device = registration
        await #expect(throws: RegistrationError.storage(full)) { _ = try await device.create(immutable) }
        #expect(try registration.store.load() == nil, "the record of a failed create stayed")
        #expect(access(state + "/profiles/p.json", F_OK) != 0, "a profile was written")
    }

    @Test func nothingToDeleteIsNotRegisteredBeforeAnyRevocation() throws {
        let dir = try TemporaryDirectory(prefix: "latchkey-registration-error-")
        defer { dir.remove() }
        let t = ScriptedTransport { _, _ in Reply.empty(500) }
        let registration = DeviceRegistration(
            stateDirectory: dir.path + "/state", profile: "p", transport: t, random: try SecureRandom())
        #expect(throws: RegistrationError.notRegistered(profile: "p")) { _ = try registration.deletion() }
        #expect(t.sent.isEmpty)
    }
}
