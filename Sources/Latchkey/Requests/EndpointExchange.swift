import LatchkeyHTTP
import LatchkeyJOSE

/// Sending one request to an endpoint and turning transport failures into `LatchkeyError`; the
/// `ProviderPipeline` sends authenticated requests through it. Token, device and revocation
/// endpoints never follow redirects (maxRedirects 0).
package struct EndpointExchange: Sendable {
    let transport: any HTTPTransport
    package var timeout: Double = 30

    package init(transport: any HTTPTransport, timeout: Double = 30) {
        self.transport = transport
        self.timeout = timeout
    }

    /// GETs a JSON document (discovery, JWKS), following at most `maxRedirects` redirects.
    func getJSON(_ url: HTTPURL, maxRedirects: Int = 3) async throws(LatchkeyError) -> HTTPResponse {
        let request = HTTPRequest(
            method: "GET", url: url, headers: [("Accept", "application/json")],
            maxRedirects: maxRedirects, timeout: timeout)
        return try await send(request)
    }

    /// Sends and maps errors: `HTTPError` → `.network`, cancellation → `.cancelled`.
    package func send(_ request: HTTPRequest) async throws(LatchkeyError) -> HTTPResponse {
        if Task.isCancelled { throw .cancelled }
        do {
            return try await transport.send(request)
        } catch let e as HTTPError {
            if e == .cancelled { throw .cancelled }
            throw .network(e)
        } catch is CancellationError {
            throw .cancelled
        } catch {
            throw .network(.ioFailure(reason: "\(error)"))
        }
    }

    /// Resolves an endpoint string into a URL allowed for OAuth traffic (https, or http to loopback).
    static func endpointURL(_ string: String?, name: String) throws(LatchkeyError) -> HTTPURL {
        guard let string, !string.isEmpty else {
            throw .configuration(.missingEndpoint(name))
        }
        guard let url = HTTPURL(string: string) else {
            throw .protocolViolation("\(name) \(string) is not an https URL (http is allowed for loopback only)")
        }
        return url
    }
}
