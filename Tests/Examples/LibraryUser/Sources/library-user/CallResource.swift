import Latchkey
import LatchkeyHTTP

/// GETs `url` with the access token: `AuthorizedTransport` adds `Authorization`, refreshes once if
/// the API answers `401 … error="invalid_token"`, and sends the token to `url`'s origin only.
func callResource(_ url: HTTPURL, source: any TokenSource, over base: any HTTPTransport) async throws -> HTTPResponse {
    let api = AuthorizedTransport(base: base, source: source, allowed: [url])
    return try await api.send(HTTPRequest(method: "GET", url: url, headers: [("Accept", "application/json")]))
}
