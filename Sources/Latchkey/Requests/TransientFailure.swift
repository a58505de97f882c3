import LatchkeyHTTP

/// The one rule for failures that may pass on their own: a dropped or refused connection, a
/// timeout, a response cut off, the server's own trouble (5xx) or its rate limit (429, RFC 6585 §4).
/// Every place that asks again or rides a failure out decides with it: the device authorization
/// request, token polling, refresh, the JWKS and discovery. TLS failures (certificate, hostname),
/// a bad URL or proxy settings, and any other status are final: they will not fix themselves.
///
/// Resource requests (`fetch`, `AuthorizedTransport`) are not retried on these: the caller's
/// request may not be idempotent and its answer is the caller's to judge; only the refresh behind
/// them rides out a transient failure.
public enum TransientFailure {
    /// Attempts at an idempotent request that is retried quickly (1 s, then 2 s apart).
    public static let quickAttempts = 3

    /// The pause after failed attempt `attempt` (1-based) of a quick retry.
    public static func pause(afterAttempt attempt: Int) -> Double { Double(attempt) }

    /// 5xx or 429.
    public static func isTransient(status: Int) -> Bool { status >= 500 || status == 429 }

    /// A transport failure worth another attempt.
    public static func isTransient(_ error: HTTPError) -> Bool {
        switch error {
        case .dnsFailure, .connectFailed, .timedOut, .ioFailure, .proxyFailure, .protocolViolation: return true
        case .tlsFailure, .invalidURL, .unusableProxy, .cancelled, .tlsExpected, .tlsNotSpoken, .unreadableCABundle, .untrustedCABundle: return false
        }
    }

    /// A Latchkey failure that is one of the above: the network, or a 5xx/429 answer.
    public static func isTransient(_ error: LatchkeyError) -> Bool {
        switch error {
        case .network(let e): return isTransient(e)
        case .oauth(.unexpectedStatus(let status), _): return isTransient(status: status)
        default: return false
        }
    }

    /// Sends an idempotent request up to `quickAttempts` times while it fails transiently (a
    /// transport failure, or a transient status); the last answer or failure is returned as it is.
    static func retryingQuickly(time: any TimeSource, isolation: isolated (any Actor)? = #isolation,
                                _ send: () async throws(LatchkeyError) -> HTTPResponse) async throws(LatchkeyError) -> HTTPResponse {
        var attempt = 0
        while true {
            attempt += 1
            do {
                let response = try await send()
                if !isTransient(status: response.status) || attempt >= quickAttempts { return response }
            } catch {
                guard attempt < quickAttempts, case .network(let e) = error, isTransient(e) else { throw error }
            }
            // The only error a sleep throws is its cancellation.
            do { try await time.sleep(seconds: pause(afterAttempt: attempt)) } catch { throw .cancelled }
        }
    }
}
