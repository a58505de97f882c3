import Latchkey
import LatchkeyHTTP

/// Prints each request's endpoint role, method, address (no query) and status.
struct TracingTransport: HTTPTransport {
    let base: any HTTPTransport
    let role: EndpointRole

    func send(_ request: HTTPRequest) async throws -> HTTPResponse {
        let response = try await base.send(request)
        print("[\(role.rawValue)] \(request.method) \(request.url.withoutQueryAndFragment) → \(response.status)")
        return response
    }
}

/// One transport per endpoint role: here each role gets its own tracer over the same client.
func tracedTransports(_ client: any HTTPTransport) -> EndpointTransports {
    var transports = EndpointTransports(client)
    for role in EndpointRole.allCases {
        transports = transports.using(TracingTransport(base: client, role: role), for: [role])
    }
    return transports
}
