import LatchkeyHTTP

/// The one rule for failures that may pass on their own: a dropped or refused connection, a
/// timeout, a response cut off, the server's own trouble (5xx) or its rate limit (429, RFC 6585 §4).
/// Every request to a provider is sent through `retrying` (discovery, the JWKS, the device and CIBA
/// requests, every token request, revocation, the push), and token polling, which keeps its own
/// pace, decides with the same predicates and `retryAfter`. TLS failures (certificate, hostname), a
/// bad URL or proxy settings, and any other status are final: they will not fix themselves.
///
/// A 429 or 503 with `Retry-After` (RFC 9110 §10.2.3) is asked again after that wait, never
/// sooner; a wait longer than `maxRetryAfter`, or one that would end past the operation's deadline,
/// is not waited out: the request ends at once with `OAuthError.unavailable` naming the wait. A
/// transient status to the last attempt allowed is `OAuthError.unavailable` too, at every endpoint.
///
/// Resource requests (`fetch`, `AuthorizedTransport`) are not retried on these: the caller's
/// request may not be idempotent and its answer is the caller's to judge; only the refresh behind
/// them rides out a transient failure. Nor is the RFC 7592 read (`RegistrationClient.read`): its
/// answer may carry a rotated registration access token, and a repeat after an answer lost on the
/// way would send the one just discarded.
package enum TransientFailure {
    /// Attempts at a request that is retried quickly (1 s, then 2 s apart, or the server's
    /// `Retry-After`).
    package static let quickAttempts = 3

    /// The pause after failed attempt `attempt` (1-based) of a quick retry, without `Retry-After`.
    package static func pause(afterAttempt attempt: Int) -> Double { Double(attempt) }

    /// The longest `Retry-After` waited out, in seconds: as long as the device grant's longest
    /// backoff (`DeviceAuthorizationFlow.maxBackoff`), so no command sits silent longer for a
    /// server than it would between two polls.
    package static let maxRetryAfter: Double = 60

    /// 5xx or 429.
    package static func isTransient(status: Int) -> Bool { status >= 500 || status == 429 }

    /// A transport failure worth another attempt.
    package static func isTransient(_ error: HTTPError) -> Bool {
        switch error {
        case .dnsFailure, .connectFailed, .timedOut, .ioFailure, .proxyFailure, .protocolViolation: return true
        case .tlsFailure, .invalidURL, .unusableProxy, .cancelled, .tlsExpected, .tlsNotSpoken, .unreadableCABundle, .untrustedCABundle:
            return false
        }
    }

    /// A Latchkey failure that is one of the above: the network, a 5xx/429 answer, or an endpoint
    /// that stayed unavailable.
    package static func isTransient(_ error: LatchkeyError) -> Bool {
        switch error {
        case .network(let e): return isTransient(e)
        case .oauth(.unexpectedStatus(let status), _): return isTransient(status: status)
        case .oauth(.unavailable, _): return true
        default: return false
        }
    }

    /// After which failures a request is sent again.
    package enum Repeat: Equatable {
        /// After any transient failure.
        case afterAnyTransientFailure
        /// Only after a failure that shows the server did not act on it: no connection was made
        /// (DNS, connect, proxy), or it answered 429 or 503.
        case whenNotActedOn
        /// Never: the failure ends the request.
        case never
    }

    /// How a request to `role` is repeated. A pushed authorization request is not: a failed push
    /// is reported before any URL is shown, and the person starts the login again. A CIBA request is
    /// repeated only when the server cannot have acted on it: sent twice, it asks the person twice.
    /// Token requests (code exchange, refresh, client credentials) are repeated after any transient
    /// failure: when the server did act (rotated the refresh token, spent the code) the answer that
    /// carried the result is lost either way, so a second try cannot lose more than the failure
    /// already did (the next use of the spent token would be refused just the same); when it did not
    /// act, or grants a reuse grace interval, the second try is what keeps the session. The others
    /// are safe to repeat: GETs, a second device request only makes another code, a revocation is
    /// idempotent.
    static func repeats(_ role: EndpointRole) -> Repeat {
        switch role {
        case .pushedAuthorization, .resource, .authorization: return .never
        // Creating a client twice would leave one behind: only when the first cannot have arrived.
        // (`RegistrationClient` repeats PUT and DELETE after any transient failure and never a GET.)
        case .registration: return .whenNotActedOn
        case .backchannelAuthentication: return .whenNotActedOn
        case .token, .discovery, .jwks, .revocation, .deviceAuthorization: return .afterAnyTransientFailure
        }
    }

    /// The wait a 429 or 503 answer asks for with `Retry-After` (RFC 9110 §10.2.3), in seconds:
    /// delta-seconds, or an HTTP-date measured from the answer's own `Date` when it has one (so a
    /// local clock that is off does not stretch it), else from `now`. Nil for other statuses, no
    /// header, or a value that is neither form.
    package static func retryAfter(_ response: HTTPResponse, now: Timestamp) -> Double? {
        guard response.status == 429 || response.status == 503, let raw = response.header("Retry-After") else { return nil }
        let value = raw.trimmingASCIIWhitespace
        if !value.isEmpty, value.utf8.count <= 18, value.utf8.allSatisfy({ $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") }) {
            return Double(value)
        }
        guard let date = HTTPDate.parse(value) else { return nil }
        return max(date.timeIntervalSince(response.serverDate ?? now), 0)
    }

    /// Whether `error` shows that nothing reached the server.
    static func sentNothing(_ error: HTTPError) -> Bool {
        switch error {
        case .dnsFailure, .connectFailed, .proxyFailure: return true
        default: return false
        }
    }

    /// Sends a request to `role` up to `quickAttempts` times while it fails transiently, as
    /// `repeats(role)` allows, pausing 1 s then 2 s, or the answer's `Retry-After`; no pause ends
    /// past `deadline`. A transient status that ends the attempts is thrown as
    /// `OAuthError.unavailable` (with the server's wait when that wait is the reason); the last
    /// transport failure is thrown as it is; any other answer is returned.
    package static func retrying(
        _ role: EndpointRole, repeating: Repeat? = nil, time: any TimeSource, until deadline: Timestamp? = nil,
        isolation: isolated (any Actor)? = #isolation,
        _ send: () async throws(LatchkeyError) -> HTTPResponse
    ) async throws(LatchkeyError) -> HTTPResponse {
        let mode = repeating ?? repeats(role)
        var attempt = 0
        while true {
            attempt += 1
            var pause: Double
            do throws(LatchkeyError) {
                let response = try await send()
                guard isTransient(status: response.status) else { return response }
                let unavailable = LatchkeyError.oauth(.unavailable(status: response.status, retryAfter: nil), endpoint: role)
                let repeatable =
                    mode == .afterAnyTransientFailure
                    || (mode == .whenNotActedOn && (response.status == 429 || response.status == 503))
                guard repeatable, attempt < quickAttempts else { throw unavailable }
                let now = time.now()
                if let wait = retryAfter(response, now: now) {
                    if wait > maxRetryAfter || deadline.map({ now.addingTimeInterval(wait) > $0 }) == true {
                        throw .oauth(.unavailable(status: response.status, retryAfter: Int64(wait.rounded(.up))), endpoint: role)
                    }
                    pause = wait
                } else {
                    pause = Self.pause(afterAttempt: attempt)
                }
                if deadline.map({ now.addingTimeInterval(pause) > $0 }) == true { throw unavailable }
            } catch {
                guard case .network(let e) = error, isTransient(e), attempt < quickAttempts,
                    mode == .afterAnyTransientFailure || (mode == .whenNotActedOn && sentNothing(e))
                else { throw error }
                pause = Self.pause(afterAttempt: attempt)
                if deadline.map({ time.now().addingTimeInterval(pause) > $0 }) == true { throw error }
            }
            // The only error a sleep throws is its cancellation.
            do { try await time.sleep(seconds: pause) } catch { throw .cancelled }
        }
    }
}

private extension String {
    /// Without leading and trailing spaces and tabs (RFC 9110 §5.5 OWS).
    var trimmingASCIIWhitespace: String {
        var bytes = Substring(self).utf8[...]
        while let first = bytes.first, CharacterClass.isOptionalWhitespace(first) { bytes = bytes.dropFirst() }
        while let last = bytes.last, CharacterClass.isOptionalWhitespace(last) { bytes = bytes.dropLast() }
        return String(decoding: bytes, as: UTF8.self)
    }
}
