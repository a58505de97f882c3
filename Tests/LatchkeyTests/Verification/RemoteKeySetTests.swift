import FoundationEssentials
import LatchkeyHTTP
import LatchkeyJOSE
import LatchkeyTesting
import Testing

@testable import Latchkey

@Suite struct RemoteKeySetTests {
    let clock = VirtualClock()
    let url = HTTPURL(string: "https://idp.example/jwks")!

    @Test func concurrentVerificationsShareOneFetch() async throws {
        let idp = try TestIssuer()
        let t = ScriptedTransport(clock: clock) { _, _ in
            try await Task.sleep(nanoseconds: 20_000_000)
            return Reply.json(200, TestIssuer.jwks([idp]))
        }
        let keys = RemoteKeySet(url: url, transport: t, time: clock)
        let jws = try JWS(compact: try idp.sign(TestIssuer.claims(now: clock.now())))
        try await withThrowingTaskGroup(of: Void.self) { group in
            for _ in 0..<16 { group.addTask { _ = try await keys.verify(jws, allowed: [.es256]) } }
            try await group.waitForAll()
        }
        #expect(t.sent.count == 1)
        #expect(await keys.fetchCount == 1)
    }

    @Test func fetchFailuresMapToNetworkOrProtocol() async throws {
        let idp = try TestIssuer()
        let jws = try JWS(compact: try idp.sign(TestIssuer.claims(now: clock.now())))
        let downTransport = ScriptedTransport { _, _ in throw HTTPError.timedOut(after: 10) }
        let down = RemoteKeySet(url: url, transport: downTransport, time: clock)
        await expectError(category: .network) { try await down.verify(jws, allowed: [.es256]) }
        #expect(downTransport.sent.count == TransientFailure.quickAttempts)
        let brokenTransport = ScriptedTransport { _, _ in Reply.json(500, "{}") }
        let broken = RemoteKeySet(url: url, transport: brokenTransport, time: clock)
        await expectError(category: .protocolViolation) { try await broken.verify(jws, allowed: [.es256]) }
        #expect(brokenTransport.sent.count == TransientFailure.quickAttempts)
        let tls = ScriptedTransport { _, _ in throw HTTPError.tlsFailure(reason: "untrusted") }
        await expectError(category: .network) {
            try await RemoteKeySet(url: url, transport: tls, time: clock).verify(jws, allowed: [.es256])
        }
        #expect(tls.sent.count == 1)
        let garbage = RemoteKeySet(url: url, transport: ScriptedTransport { _, _ in Reply.json(200, #"{"keys":"nope"}"#) }, time: clock)
        await expectError(category: .protocolViolation) { try await garbage.verify(jws, allowed: [.es256]) }
    }

    @Test func droppedJWKSResponseIsRetried() async throws {
        let idp = try TestIssuer()
        let t = ScriptedTransport(clock: clock) { _, index in
            if index == 0 { throw HTTPError.protocolViolation(reason: "truncated response") }
            return Reply.json(200, TestIssuer.jwks([idp]))
        }
        let jws = try JWS(compact: try idp.sign(TestIssuer.claims(now: clock.now())))
        _ = try await RemoteKeySet(url: url, transport: t, time: clock).verify(jws, allowed: [.es256])
        #expect(t.sent.count == 2)
        #expect(clock.sleeps == [1])
    }

    @Test func jwksFetchMayFollowRedirects() async throws {
        let idp = try TestIssuer()
        let t = ScriptedTransport(clock: clock) { _, _ in Reply.json(200, TestIssuer.jwks([idp])) }
        _ = try await RemoteKeySet(url: url, transport: t, time: clock).currentKeys()
        #expect(t.sent.first?.request.maxRedirects == 3)
    }
}
