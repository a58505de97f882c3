import LatchkeyHTTP
import LatchkeyJOSE
import LatchkeyTesting
import Testing

@testable import Latchkey
@testable import LatchkeyRegistration

/// Issue 31 §4: registration requests follow the one transient rule. A create is sent again only
/// when the first cannot have arrived (a 503 or 429, no connection), PUT and DELETE after any
/// transient failure, and the RFC 7592 GET never (its answer is what confirms a state).
@Suite struct RegistrationRetryTests {
    static let issuer = "https://idp.example/realm"
    static let management = RegistrationManagement(uri: "https://idp.example/register/c1", accessToken: "rat")
    static let answer = #"{"client_id":"c1","registration_client_uri":"https://idp.example/register/c1","registration_access_token":"rat"}"#

    func client(_ transport: ScriptedTransport, _ clock: VirtualClock) -> RegistrationClient {
        RegistrationClient(issuer: Self.issuer, dialect: .rfc7591, transport: transport, time: clock)
    }

    @Test func aCreateAnswered503IsSentAgainAfterTheServersWait() async throws {
        let clock = VirtualClock()
        let t = ScriptedTransport(clock: clock) { _, index in
            index == 0 ? Reply.json(503, "{}", headers: [("Retry-After", "7")]) : Reply.json(201, Self.answer)
        }
        let made = try await client(t, clock).create(ClientMetadata(), endpoint: Self.issuer + "/register", initialAccessToken: nil)
        #expect(made.clientID == "c1")
        #expect(t.sent.count == 2)
        #expect(clock.sleeps == [7])
    }

    @Test func aCreateWhoseConnectionBrokeIsNotSentAgain() async throws {
        let clock = VirtualClock()
        let t = ScriptedTransport(clock: clock) { _, _ in throw HTTPError.ioFailure(reason: "connection reset by peer") }
        await #expect(throws: RegistrationError.self) {
            _ = try await client(t, clock).create(ClientMetadata(), endpoint: Self.issuer + "/register", initialAccessToken: nil)
        }
        #expect(t.sent.count == 1, "a create that may have arrived was sent again")
    }

    @Test func updateAndDeleteRideOutAResetAndTheGetNever() async throws {
        let clock = VirtualClock()
        let deletes = ScriptedTransport(clock: clock) { _, index in
            if index == 0 { throw HTTPError.ioFailure(reason: "connection reset by peer") }
            return Reply.empty(204)
        }
        try await client(deletes, clock).delete(Self.management)
        #expect(deletes.sent.count == 2)

        let reads = ScriptedTransport(clock: clock) { _, _ in Reply.json(503, "{}") }
        await #expect(throws: RegistrationError.self) { _ = try await client(reads, clock).read(Self.management) }
        #expect(reads.sent.count == 1, "the RFC 7592 GET was repeated")
    }
}
