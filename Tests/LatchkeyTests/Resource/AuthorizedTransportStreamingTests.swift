import LatchkeyHTTP
import LatchkeyTesting
import Synchronization
import Testing

@testable import Latchkey

/// `AuthorizedTransport.send(_:bodySink:)`: every retry and redirect decision is made on the head,
/// so the caller's chooser sees only the final answer and a refused or redirected body never
/// reaches the caller's output.
@Suite struct AuthorizedTransportStreamingTests {
    static let api = AuthorizedTransportTests.api

    final class Collector: HTTPBodySink {
        let heads = Mutex<[Int]>([])
        let bytes = Mutex<[UInt8]>([])
        func write(_ piece: ArraySlice<UInt8>) throws { bytes.withLock { $0 += piece } }
        func choose(_ head: HTTPResponse) -> (any HTTPBodySink)? {
            heads.withLock { $0.append(head.status) }
            return self
        }
        var text: String { String(decoding: bytes.withLock { $0 }, as: UTF8.self) }
    }

    @Test func aRefusedTokenIsRetriedAndOnlyTheRetryIsStreamed() async throws {
        let base = ScriptedTransport { r, index in
            index == 0
                ? HTTPResponse(
                    status: 401, headers: AuthorizedTransportTests.invalidToken().headers,
                    body: Array("refused".utf8), url: r.url)
                : HTTPResponse(status: 200, body: Array("fresh".utf8), url: r.url)
        }
        let source = AuthorizedTransportTests.Source()
        let sink = Collector()
        let transport = AuthorizedTransport(base: base, source: source, allowed: [Self.api])
        let r = try await transport.send(HTTPRequest(url: Self.api)) { sink.choose($0) }
        #expect(r.status == 200 && r.body.isEmpty)
        #expect(sink.heads.withLock { $0 } == [200])
        #expect(sink.text == "fresh")
        #expect(base.sent.map { $0.header("Authorization") } == ["Bearer tok-1", "Bearer tok-2"])
    }

    @Test func aSecondRefusalIsTheAnswerAndIsStreamed() async throws {
        let base = ScriptedTransport { r, _ in
            HTTPResponse(status: 401, headers: AuthorizedTransportTests.invalidToken().headers, body: Array("no".utf8), url: r.url)
        }
        let sink = Collector()
        let transport = AuthorizedTransport(base: base, source: AuthorizedTransportTests.Source(), allowed: [Self.api])
        let r = try await transport.send(HTTPRequest(url: Self.api)) { sink.choose($0) }
        #expect(r.status == 401)
        #expect(sink.heads.withLock { $0 } == [401], "only the final 401 is offered")
        #expect(sink.text == "no")
        #expect(base.sent.count == 2)
    }

    @Test func followedRedirectsStayOffTheOutputButTheUnfollowedOneIsTheAnswer() async throws {
        let base = ScriptedTransport { r, _ in
            switch r.url.path {
            case "/v1/me": return HTTPResponse(status: 302, headers: [("Location", "/v1/next")], body: Array("hop".utf8), url: r.url)
            case "/v1/next":
                return HTTPResponse(
                    status: 302, headers: [("Location", "https://other.example/x")],
                    body: Array("away".utf8), url: r.url)
            default: return HTTPResponse(status: 500, url: r.url)
            }
        }
        let sink = Collector()
        let transport = AuthorizedTransport(base: base, source: AuthorizedTransportTests.Source(), allowed: [Self.api])
        let r = try await transport.send(HTTPRequest(url: Self.api, maxRedirects: 3)) { sink.choose($0) }
        #expect(r.status == 302 && r.header("Location") == "https://other.example/x")
        #expect(sink.heads.withLock { $0 } == [302])
        #expect(sink.text == "away", "the same-origin hop's body is dropped, the cross-origin answer is the result")
        #expect(base.sent.map(\.path) == ["/v1/me", "/v1/next"])
    }

    @Test func withoutASinkTheBodyIsBufferedAsBefore() async throws {
        let base = ScriptedTransport { r, _ in HTTPResponse(status: 200, body: Array("kept".utf8), url: r.url) }
        let transport = AuthorizedTransport(base: base, source: AuthorizedTransportTests.Source(), allowed: [Self.api])
        let r = try await transport.send(HTTPRequest(url: Self.api)) { _ in nil }
        #expect(String(decoding: r.body, as: UTF8.self) == "kept")
    }
}
