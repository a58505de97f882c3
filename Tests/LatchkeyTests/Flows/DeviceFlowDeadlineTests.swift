import FoundationEssentials
import LatchkeyHTTP
import LatchkeyTesting
import Testing

@testable import Latchkey

/// A request in flight may not outlive the flow: each request's own deadline is cut to what is left
/// of the device code's lifetime or the `--timeout` cap (found by the stall-forever fault).
@Suite struct DeviceFlowDeadlineTests {
    let clock = VirtualClock()

    func flow(_ transport: ScriptedTransport) -> DeviceAuthorizationFlow {
        DeviceAuthorizationFlow(
            client: try! TokenClient.testing(
                configuration: testConfiguration(), metadata: testMetadata(), transport: transport,
                random: CountingRandom()),
            time: clock, random: CountingRandom())
    }

    @Test func pollRequestsCarryTheRemainingLifetimeAsTheirTimeout() async throws {
        let device = Reply.json(
            200, #"{"device_code":"dc","user_code":"ABCD-EFGH","verification_uri":"https://idp.example/a","expires_in":12,"interval":5}"#)
        // A stalled server: the request takes as long as its timeout allows, then times out.
        let t = ScriptedTransport(clock: clock) { [clock] request, _ in
            if request.url.path == "/device" { return device }
            clock.advance(request.timeout)
            throw HTTPError.timedOut(after: request.timeout)
        }
        await #expect(throws: LatchkeyError.self) { try await flow(t).run() }
        let polls = t.sent(to: "/token")
        #expect(!polls.isEmpty)
        // First poll at t=5 with 7 s left of the 12 s code; never the transport's default 30 s.
        #expect(polls.first?.request.timeout == 7)
        #expect(polls.allSatisfy { $0.request.timeout <= 7 })
        #expect(clock.now().timeIntervalSince(polls[0].at) <= 7 + 0.001)
    }

    @Test func timeoutCapBoundsAStalledDeviceRequest() async throws {
        let t = ScriptedTransport(clock: clock) { [clock] request, _ in
            clock.advance(request.timeout)
            throw HTTPError.timedOut(after: request.timeout)
        }
        let started = clock.now()
        do {
            _ = try await flow(t).run(timeout: 8)
            Issue.record("a stalled device endpoint cannot sign in")
        } catch {
            #expect(error.category == .expired, "\(error)")
        }
        #expect(t.sent.first?.request.timeout == 8)
        #expect(clock.now().timeIntervalSince(started) <= 8 + 0.001)
    }
}
