import Latchkey
import LatchkeyHTTP

/// Hands each piece of a body to `consume` as it arrives (a file, a hash, a pipe).
struct Piecewise: HTTPBodySink {
    let consume: @Sendable (ArraySlice<UInt8>) throws -> Void
    func write(_ bytes: ArraySlice<UInt8>) throws { try consume(bytes) }
}

/// GETs `url` with the token and streams a successful body to `consume`; an error answer's body
/// stays buffered in the returned response.
func download(
    _ url: HTTPURL, source: any TokenSource, over base: any HTTPTransport,
    into consume: @escaping @Sendable (ArraySlice<UInt8>) throws -> Void
) async throws -> HTTPResponse {
    let api = AuthorizedTransport(base: base, source: source, allowed: [url])
    return try await api.send(HTTPRequest(url: url)) { head in
        head.status < 400 ? Piecewise(consume: consume) : nil
    }
}
