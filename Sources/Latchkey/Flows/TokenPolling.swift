import LatchkeyHTTP

/// Polling the token endpoint until a person decides, shared by the device grant (RFC 8628 §3.4–3.5)
/// and CIBA poll mode (CIBA Core §7.3, §11), whose rules are the same: the interval counts from
/// when the previous response *arrived*; `slow_down` adopts the server's new `interval` when it is
/// larger, else adds 5 s; pending and slow_down are recognised by the `error` member whatever the
/// HTTP status (GitHub 200, Auth0 403/429); the `expires_in` deadline is enforced client-side;
/// network errors, 5xx and 429 are retried with backoff until the deadline (`TransientFailure`'s
/// predicates), after at least the answer's `Retry-After`; a `Retry-After` past the deadline or
/// `TransientFailure.maxRetryAfter` ends the polling at once (`OAuthError.unavailable`). Polling
/// has a deadline where other requests have a count of attempts, so a server that keeps failing
/// ends it as the deadline does: `.expired` or `.timedOut`.
struct TokenPolling: Sendable {
    /// The token client (endpoints, client authentication, proofs).
    let client: TokenClient
    let time: any TimeSource
    /// The grant parameters sent on every poll.
    let parameters: [(String, String)]
    /// The server's interval (already defaulted and clamped).
    let interval: Int64
    /// When the response that started the wait arrived; the first poll counts from here.
    let receivedAt: Timestamp
    /// When the code or request expires (`receivedAt + expires_in`).
    let deadline: Timestamp
    /// What `.expired` says when the deadline passes unanswered.
    let expiryReason: String

    /// Polls until `cap` at the latest; `timeout` is only what the `.timedOut` error reports.
    func run(cap: Timestamp?, timeout: Double?, events: LoginEventHandler) async throws(LatchkeyError) -> TokenResponse {
        var interval = Double(max(self.interval, 1))
        var wait = interval
        var lastArrival = receivedAt
        var failures = 0

        while true {
            let next = lastArrival.addingTimeInterval(wait)
            // No poll can happen before the end: wait out the remaining time, so the end is reported
            // when the countdown the user sees reaches zero, not an interval early.
            if next > deadline || (cap.map { next > $0 } ?? false) {
                let end = min(deadline, cap ?? deadline)
                do { try await time.sleep(seconds: max(end.timeIntervalSince(time.now()), 0)) } catch { throw .cancelled }
                if let cap, let timeout, cap <= deadline { throw .timedOut(seconds: timeout) }
                throw .expired(reason: expiryReason)
            }
            let delay = next.timeIntervalSince(time.now())
            do { try await time.sleep(seconds: max(delay, 0)) } catch { throw .cancelled }
            if Task.isCancelled { throw .cancelled }

            let outcome: TokenResponse.Outcome
            let response: HTTPResponse
            do {
                // A request in flight must not outlive the flow: cut its deadline to what is left.
                let end = min(deadline, cap ?? deadline)
                (outcome, response) = try await client.bounded(to: end.timeIntervalSince(time.now())).request(parameters, retrying: false)
            } catch {
                guard case .network(let e) = error, TransientFailure.isTransient(e) else { throw error }
                lastArrival = time.now()
                failures += 1
                wait = backoff(interval: interval, failures: failures)
                events(.retrying(reason: e.description, nextPollIn: Int(wait.rounded(.up))))
                continue
            }
            lastArrival = time.now()

            switch outcome {
            case .token(let token):
                return token
            case .error(.server(code: "authorization_pending", _, _)):
                failures = 0
                wait = interval
                events(.pending(nextPollIn: Int(wait.rounded(.up))))
            case .error(.server(code: "slow_down", _, _)):
                failures = 0
                // RFC 8628 §3.5: the interval MUST grow by 5 s. GitHub sends its new interval instead, which
                // is adopted when it is larger; an echo of the current one, or a smaller one, would keep the
                // client at the rate it was told to leave, so it is +5 s then too.
                let serverInterval = ResponseBody.object(response)?.lenientInt("interval")
                    .map { Double(min($0, DeviceAuthorizationResponse.maxInterval)) }
                if let serverInterval, serverInterval > interval {
                    interval = serverInterval
                } else {
                    interval += 5
                }
                wait = interval
                events(.slowDown(interval: Int(interval.rounded(.up))))
            case .error(.unexpectedStatus(let status)) where TransientFailure.isTransient(status: status):
                failures += 1
                wait = backoff(interval: interval, failures: failures)
                if let asked = TransientFailure.retryAfter(response, now: lastArrival) {
                    let end = min(deadline, cap ?? deadline)
                    if asked > TransientFailure.maxRetryAfter || lastArrival.addingTimeInterval(asked) > end {
                        throw .oauth(.unavailable(status: status, retryAfter: Int64(asked.rounded(.up))), endpoint: .token)
                    }
                    wait = max(wait, asked)
                }
                events(.retrying(reason: "HTTP \(status)", nextPollIn: Int(wait.rounded(.up))))
            case .error(let e):
                throw DeviceErrorMapping.error(for: e, endpoint: .token)
            }
        }
    }

    /// Exponential backoff from the interval, capped, never below the interval.
    private func backoff(interval: Double, failures: Int) -> Double {
        let factor = Double(1 << min(failures, 6))
        return max(interval, min(interval * factor, DeviceAuthorizationFlow.maxBackoff))
    }
}
