import Latchkey
import LatchkeyHTTP
import Synchronization

/// An `HTTPTransport` that answers from a script instead of the network, and records every
/// request sent through it, so a test can drive a sign-in or a refresh and then check exactly
/// what went to the provider.
///
/// Two ways to answer: a list of steps used one per request, in order (a request past the end
/// throws `ScriptedTransport.ScriptExhausted`), or one handler that answers every request and
/// gets its index (for servers whose answer depends on the path or on how often they were asked).
public final class ScriptedTransport: HTTPTransport, Sendable {
    /// Answers one request; `index` counts the requests sent so far, from 0.
    public typealias Handler = @Sendable (_ request: HTTPRequest, _ index: Int) async throws -> HTTPResponse

    /// One answer of a script.
    public enum Step: Sendable {
        /// Answers with this response.
        case reply(HTTPResponse)
        /// Fails the request with this error, as a broken connection would (e.g. an `HTTPError`).
        case fail(any Error)
        /// Answers with whatever the closure makes of the request.
        case handle(@Sendable (HTTPRequest) async throws -> HTTPResponse)
    }

    /// A request as it was sent, with the time on the transport's clock when it was sent.
    public struct SentRequest: Sendable {
        /// The request exactly as the caller passed it.
        public var request: HTTPRequest
        /// When it was sent: the transport's clock, or the system clock when it has none.
        public var at: Timestamp

        /// Records `request` as sent at `at`.
        public init(request: HTTPRequest, at: Timestamp) {
            self.request = request
            self.at = at
        }

        /// The body as `application/x-www-form-urlencoded` parameters; a repeated name keeps its last value.
        public var form: [String: String] {
            var parameters: [String: String] = [:]
            for (name, value) in FormURLEncoding.decode(String(decoding: request.body, as: UTF8.self)) { parameters[name] = value }
            return parameters
        }

        /// The first request header named `name` (case-insensitive).
        public func header(_ name: String) -> String? {
            request.headers.first { $0.name.lowercased() == name.lowercased() }?.value
        }

        /// The URL's path, e.g. `/token`.
        public var path: String { request.url.path }
    }

    /// A request arrived after the last step of the script: the code under test sent more than
    /// the test expected.
    public struct ScriptExhausted: Error, Equatable, CustomStringConvertible {
        /// The method of the unexpected request.
        public let method: String
        /// Its URL.
        public let url: String
        /// How many steps the script had (all used).
        public let steps: Int

        /// What ran out, for the test's failure message.
        public var description: String {
            "ScriptedTransport: no step left for request \(steps + 1) (\(method) \(url)); the script has \(steps)"
        }
    }

    private struct State {
        var sent: [SentRequest] = []
        var script: [Step]
        var nextStep = 0
    }

    private let state: Mutex<State>
    private let handler: Handler?
    private let clock: (any TimeSource)?

    /// A transport answering every request with `handler`. `clock` (e.g. a `VirtualClock`) stamps
    /// the recorded requests.
    public init(clock: (any TimeSource)? = nil, handler: @escaping Handler) {
        self.clock = clock
        self.handler = handler
        state = Mutex(State(script: []))
    }

    /// A transport answering request n with `script[n]`; one more request throws `ScriptExhausted`.
    public init(clock: (any TimeSource)? = nil, script: [Step]) {
        self.clock = clock
        self.handler = nil
        state = Mutex(State(script: script))
    }

    /// Every request sent so far, in order.
    public var sent: [SentRequest] { state.withLock { $0.sent } }

    /// The requests sent so far whose URL path is `path`.
    public func sent(to path: String) -> [SentRequest] { sent.filter { $0.path == path } }

    /// Steps of the script not used yet (0 for a handler transport): a test can check that the
    /// code under test made every request it was meant to.
    public var unusedSteps: Int { state.withLock { $0.script.count - $0.nextStep } }

    /// Records `request`, then answers it from the script or the handler.
    public func send(_ request: HTTPRequest) async throws -> HTTPResponse {
        let at = clock?.now() ?? Timestamp.now()
        let (index, step) = state.withLock { s -> (Int, Step?) in
            s.sent.append(SentRequest(request: request, at: at))
            guard s.nextStep < s.script.count else { return (s.sent.count - 1, nil) }
            s.nextStep += 1
            return (s.sent.count - 1, s.script[s.nextStep - 1])
        }
        if let handler { return try await handler(request, index) }
        switch step {
        case .reply(let response): return response
        case .fail(let error): throw error
        case .handle(let answer): return try await answer(request)
        case nil:
            throw ScriptExhausted(method: request.method, url: request.url.absoluteString, steps: state.withLock { $0.script.count })
        }
    }
}
