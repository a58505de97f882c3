import LatchkeyHTTP
import LatchkeyTesting
import Testing

@testable import Latchkey

/// One transient-failure rule (`TransientFailure`), and every place that retries or rides out a
/// failure agreeing with it: the device authorization request, the JWKS, discovery and refresh
/// retry 5xx and 429 alike, and none of them retries a 4xx or a TLS failure.
@Suite struct TransientFailureTests {
    let clock = VirtualClock()

    @Test(arguments: [500, 502, 503, 504, 429])
    func serverTroubleAndRateLimitsAreTransient(status: Int) {
        #expect(TransientFailure.isTransient(status: status))
        #expect(TransientFailure.isTransient(LatchkeyError.oauth(.unexpectedStatus(status), endpoint: .token)))
    }

    @Test(arguments: [200, 301, 400, 401, 403, 404, 409])
    func otherAnswersAreFinal(status: Int) {
        #expect(!TransientFailure.isTransient(status: status))
    }

    @Test func transportFailures() {
        #expect(TransientFailure.isTransient(.connectFailed(host: "h", port: 1, reason: "refused")))
        #expect(TransientFailure.isTransient(.timedOut(after: 1)))
        #expect(TransientFailure.isTransient(.ioFailure(reason: "reset")))
        #expect(!TransientFailure.isTransient(.tlsFailure(reason: "untrusted")))
        #expect(!TransientFailure.isTransient(HTTPError.cancelled))
        #expect(!TransientFailure.isTransient(LatchkeyError.network(.tlsFailure(reason: "untrusted"))))
    }

    private func document(_ issuer: String) -> String {
        #"{"issuer":"\#(issuer)","token_endpoint":"\#(issuer)/token","jwks_uri":"\#(issuer)/jwks"}"#
    }

    /// Discovery asks again after a 429 or a 503 (it did not before), then reads the document.
    @Test(arguments: [429, 503])
    func discoveryRidesOutATransientAnswer(status: Int) async throws {
        let t = ScriptedTransport(clock: clock) { _, index in
            index < 2 ? Reply.json(status, "{}") : Reply.json(200, document("https://idp.example"))
        }
        let m = try await ProviderDiscovery.discover(issuer: "https://idp.example", transport: t, time: clock)
        #expect(m.tokenEndpoint == "https://idp.example/token")
        #expect(t.sent(to: "/.well-known/openid-configuration").count == 3)
        #expect(clock.sleeps == [1, 2])
    }

    /// A final answer (404) goes to the next candidate at once: no pause, one request each.
    @Test func discoveryDoesNotRetryA404() async throws {
        let t = ScriptedTransport(clock: clock) { r, _ in
            r.url.path.hasPrefix("/.well-known/openid-configuration")
                ? Reply.json(404, "{}") : Reply.json(200, document("https://idp.example"))
        }
        _ = try await ProviderDiscovery.discover(issuer: "https://idp.example", transport: t, time: clock)
        #expect(t.sent.count == 2)
        #expect(clock.sleeps.isEmpty)
    }

    /// The JWKS is asked again after a 429 (before, only after a 5xx).
    @Test func jwksRetriesARateLimit() async throws {
        let t = ScriptedTransport(clock: clock) { _, index in
            index == 0 ? Reply.json(429, "{}") : Reply.json(200, #"{"keys":[]}"#)
        }
        let keys = RemoteKeySet(url: HTTPURL(string: "https://idp.example/jwks")!, transport: t, time: clock)
        _ = try await keys.currentKeys()
        #expect(t.sent.count == 2)
    }

    /// A refresh that meets a rate limit while the token is still valid hands out the valid token,
    /// like a 503; a 400 is final.
    @Test func refreshRidesOutARateLimitButNotARefusal() {
        #expect(Refresher.isTransient(.oauth(.unexpectedStatus(429), endpoint: .token)))
        #expect(Refresher.isTransient(.network(.ioFailure(reason: "reset"))))
        #expect(!Refresher.isTransient(.oauth(.unexpectedStatus(400), endpoint: .token)))
    }
}

extension TransientFailureTests {
    /// The device authorization request is asked again after a 429 (before, only after a 5xx).
    @Test func deviceAuthorizationRetriesARateLimit() async throws {
        let device = DeviceFlowTests()
        let t = ScriptedTransport(clock: device.clock) { r, index in
            if index == 0 { return Reply.json(429, #"{"error":"slow_down"}"#) }
            return r.url.path == "/device" ? DeviceFlowTests.standardDevice : DeviceFlowTests.token
        }
        _ = try await device.flow(t).run()
        #expect(t.sent(to: "/device").count == 2)
    }
}
