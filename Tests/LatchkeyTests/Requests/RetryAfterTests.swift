import LatchkeyHTTP
import LatchkeyTesting
import Testing

@testable import Latchkey

/// `Retry-After` (RFC 9110 §10.2.3) on a 429 or 503: read as delta-seconds or an HTTP-date, waited
/// out before the next attempt, bounded by `TransientFailure.maxRetryAfter` and the operation's
/// deadline; a wait past either ends the request at once with the server's wait in the error.
@Suite struct RetryAfterTests {
    let clock = VirtualClock()

    static func busy(_ retryAfter: String, status: Int = 503, date: String? = nil) -> HTTPResponse {
        var headers: [(name: String, value: String)] = [("Retry-After", retryAfter)]
        if let date { headers.append(("Date", date)) }
        return Reply.json(status, "{}", headers: headers)
    }

    static let document = Reply.json(200, #"{"issuer":"https://idp.example","token_endpoint":"https://idp.example/token"}"#)

    func client(_ t: ScriptedTransport) throws -> TokenClient {
        try TokenClient.testing(
            configuration: testConfiguration(), metadata: testMetadata(), transport: t, time: clock, random: CountingRandom())
    }

    /// `body` throws `unavailable` with the server's wait.
    func expectGivesUp(
        status: Int = 503, wait: Int64, at role: EndpointRole, sourceLocation: SourceLocation = #_sourceLocation,
        _ body: () async throws(LatchkeyError) -> Void
    ) async {
        do {
            try await body()
            Issue.record("expected the request to give up", sourceLocation: sourceLocation)
        } catch {
            guard case .oauth(let e, let endpoint) = error else {
                Issue.record("\(error)", sourceLocation: sourceLocation)
                return
            }
            #expect(e == .unavailable(status: status, retryAfter: wait) && endpoint == role, "\(error)", sourceLocation: sourceLocation)
        }
    }

    // MARK: Reading the header

    @Test func deltaSecondsAndDates() {
        let now = clock.now()
        #expect(TransientFailure.retryAfter(Self.busy("7"), now: now) == 7)
        #expect(TransientFailure.retryAfter(Self.busy(" 0 ", status: 429), now: now) == 0)
        // An HTTP-date counts from the answer's own Date, so a local clock that is off does not matter.
        let serverNow = now.addingTimeInterval(-3600)
        #expect(
            TransientFailure.retryAfter(
                Self.busy(HTTPDate.format(serverNow.addingTimeInterval(30)), date: HTTPDate.format(serverNow)),
                now: now) == 30)
        // Without a Date, from now; a date already past asks for no wait.
        #expect(TransientFailure.retryAfter(Self.busy(HTTPDate.format(now.addingTimeInterval(45))), now: now) == 45)
        #expect(TransientFailure.retryAfter(Self.busy(HTTPDate.format(now.addingTimeInterval(-45))), now: now) == 0)
    }

    @Test(arguments: ["", "soon", "-5", "1.5", "0x10", "99999999999999999999", "Sun, 06 Nov 1994 08:49:37 UTC"])
    func unreadableValuesAreIgnored(_ value: String) {
        #expect(TransientFailure.retryAfter(Self.busy(value), now: clock.now()) == nil)
    }

    /// Only a 429 or 503 is read for it (RFC 9110 §10.2.3 also names 3xx, which are not retried).
    @Test(arguments: [500, 502, 301, 200])
    func otherStatusesAreNotRead(_ status: Int) {
        #expect(TransientFailure.retryAfter(Self.busy("7", status: status), now: clock.now()) == nil)
    }

    // MARK: Waiting it out

    @Test(arguments: [429, 503])
    func theWaitReplacesTheQuickPause(_ status: Int) async throws {
        let t = ScriptedTransport(
            clock: clock, script: [.reply(Self.busy("7", status: status)), .reply(Self.busy("13", status: status)), .reply(Self.document)])
        _ = try await ProviderDiscovery.discover(issuer: "https://idp.example", transport: t, time: clock)
        #expect(clock.sleeps == [7, 13])
        #expect(t.sent.count == 3)
    }

    @Test func anHTTPDateIsWaitedOut() async throws {
        let date = HTTPDate.format(clock.now())
        let later = HTTPDate.format(clock.now().addingTimeInterval(20))
        let t = ScriptedTransport(clock: clock, script: [.reply(Self.busy(later, date: date)), .reply(DeviceFlowTests.token)])
        _ = try await client(t).refresh(refreshToken: "rt")
        #expect(clock.sleeps == [20])
    }

    /// The cap is inclusive: exactly `maxRetryAfter` is waited.
    @Test func theCapItselfIsWaited() async throws {
        let t = ScriptedTransport(clock: clock, script: [.reply(Self.busy("60")), .reply(DeviceFlowTests.token)])
        _ = try await client(t).refresh(refreshToken: "rt")
        #expect(clock.sleeps == [TransientFailure.maxRetryAfter])
    }

    // MARK: Giving up at once

    @Test(arguments: [429, 503])
    func aWaitPastTheCapGivesUpAtOnce(_ status: Int) async throws {
        let t = ScriptedTransport(clock: clock, script: [.reply(Self.busy("61", status: status))])
        let c = try client(t)
        await expectGivesUp(status: status, wait: 61, at: .token) { () throws(LatchkeyError) in _ = try await c.refresh(refreshToken: "rt")
        }
        #expect(t.sent.count == 1 && clock.sleeps.isEmpty)
    }

    /// The login's `--timeout` is the device request's deadline: a shorter wait than the cap that
    /// would still end past it is not begun.
    @Test func aWaitPastTheDeadlineGivesUpAtOnce() async throws {
        let t = ScriptedTransport(clock: clock, script: [.reply(Self.busy("30"))])
        let flow = DeviceAuthorizationFlow(client: try client(t), time: clock, random: CountingRandom())
        await expectGivesUp(wait: 30, at: .deviceAuthorization) { () throws(LatchkeyError) in _ = try await flow.run(timeout: 20) }
        #expect(t.sent.count == 1 && clock.sleeps.isEmpty)
    }

    @Test func aWaitWithinTheDeadlineIsWaited() async throws {
        let t = ScriptedTransport(clock: clock, script: [.reply(Self.busy("15")), .reply(DeviceFlowTests.standardDevice)])
        let flow = DeviceAuthorizationFlow(client: try client(t), time: clock, random: CountingRandom())
        _ = try await flow.start(until: clock.now().addingTimeInterval(20), timeout: 20)
        #expect(clock.sleeps == [15])
    }

    /// A quick pause that would end past the deadline is not begun either: the last failure stands.
    @Test func noQuickPausePastTheDeadline() async throws {
        let t = ScriptedTransport(clock: clock, script: [.reply(Reply.empty(503))])
        let flow = DeviceAuthorizationFlow(client: try client(t), time: clock, random: CountingRandom())
        do {
            _ = try await flow.start(until: clock.now().addingTimeInterval(0.5), timeout: 0.5)
            Issue.record("expected a failure")
        } catch {
            guard case .oauth(.unavailable(503, nil), .deviceAuthorization) = error else { Issue.record("\(error)"); return }
        }
        #expect(t.sent.count == 1 && clock.sleeps.isEmpty)
    }

    // MARK: Polling

    /// Polling keeps its interval and backoff, and waits at least what the server asks.
    @Test func pollingWaitsAtLeastTheServersWait() async throws {
        let t = ScriptedTransport(
            clock: clock,
            script: [
                .reply(DeviceFlowTests.standardDevice), .reply(Self.busy("30")),
                .reply(DeviceFlowTests.token)
            ])
        let flow = DeviceAuthorizationFlow(client: try client(t), time: clock, random: CountingRandom())
        _ = try await flow.run()
        let polls = t.sent(to: "/token").map(\.at)
        #expect(polls.count == 2)
        #expect(polls[1].timeIntervalSince(polls[0]) == 30)
    }

    /// A short wait under the backoff does not shorten it.
    @Test func pollingNeverPollsSoonerThanItsBackoff() async throws {
        let t = ScriptedTransport(
            clock: clock,
            script: [
                .reply(DeviceFlowTests.standardDevice), .reply(Self.busy("1")),
                .reply(DeviceFlowTests.token)
            ])
        let flow = DeviceAuthorizationFlow(client: try client(t), time: clock, random: CountingRandom())
        _ = try await flow.run()
        let polls = t.sent(to: "/token").map(\.at)
        #expect(polls[1].timeIntervalSince(polls[0]) == 10, "backoff: twice the 5 s interval")
    }

    @Test func pollingGivesUpOnAWaitPastTheCapOrTheDeadline() async throws {
        for (retryAfter, timeout) in [("61", nil), ("30", 20.0 as Double?)] {
            let clock = VirtualClock()
            let t = ScriptedTransport(clock: clock, script: [.reply(DeviceFlowTests.standardDevice), .reply(Self.busy(retryAfter))])
            let c = try TokenClient.testing(
                configuration: testConfiguration(), metadata: testMetadata(), transport: t, time: clock, random: CountingRandom())
            let flow = DeviceAuthorizationFlow(client: c, time: clock, random: CountingRandom())
            await expectGivesUp(wait: Int64(retryAfter)!, at: .token) { () throws(LatchkeyError) in _ = try await flow.run(timeout: timeout)
            }
            #expect(t.sent(to: "/token").count == 1)
        }
    }

    /// A `slow_down` keeps its own rule (RFC 8628 §3.5) even on a 429 with `Retry-After`.
    @Test func slowDownKeepsItsRule() async throws {
        let slowDown = Reply.json(429, #"{"error":"slow_down"}"#, headers: [("Retry-After", "50")])
        let t = ScriptedTransport(
            clock: clock, script: [.reply(DeviceFlowTests.standardDevice), .reply(slowDown), .reply(DeviceFlowTests.token)])
        let flow = DeviceAuthorizationFlow(client: try client(t), time: clock, random: CountingRandom())
        _ = try await flow.run()
        let polls = t.sent(to: "/token").map(\.at)
        #expect(polls[1].timeIntervalSince(polls[0]) == 10, "5 s interval + 5 s")
    }
}
