import LatchkeyCrypto
import LatchkeyHTTP

/// The device authorization grant (RFC 8628): request a code, show it, poll until the user decides.
///
/// Polling rules (overview.md, providers.md): the interval is measured from when the previous
/// response *arrived*; `slow_down` adopts the server's new `interval` when it is larger, else adds 5 s; pending and
/// slow_down are recognised by the `error` member whatever the HTTP status (GitHub 200, Auth0 403/429);
/// the `expires_in` deadline is enforced client-side; network errors and 5xx are retried with backoff
/// until the deadline.
public struct DeviceAuthorizationFlow: Sendable {
    /// The token client (endpoints, client authentication).
    public let client: TokenClient
    let time: any TimeSource
    let random: any RandomSource

    /// Longest wait between retries after network errors or 5xx.
    public static let maxBackoff: Double = 60

    /// Makes a flow.
    public init(client: TokenClient, time: any TimeSource, random: any RandomSource) {
        self.client = client
        self.time = time
        self.random = random
    }

    /// A started device authorization: what to show, and what polling needs.
    public struct Pending: Sendable {
        /// The server's response.
        public let authorization: DeviceAuthorizationResponse
        /// The PKCE pair sent with the request, if any.
        public let pkce: PKCE?
        /// When the response arrived; the interval and the deadline count from here.
        public let receivedAt: Timestamp
        /// When the device code expires (`receivedAt + expires_in`).
        public var expiresAt: Timestamp { receivedAt.addingTimeInterval(Double(authorization.expiresIn)) }
    }

    /// Whether the device request carries PKCE under `mode`.
    public static func usesPKCE(_ mode: PKCEMode, metadata: ProviderMetadata) -> Bool {
        switch mode {
        case .always: return true
        case .never: return false
        case .auto: return metadata.codeChallengeMethodsSupported?.contains("S256") ?? false
        }
    }

    /// Sends the device authorization request (RFC 8628 §3.1). With `until`, no request or retry
    /// runs past that instant (the `--timeout` cap): the flow ends with `.timedOut` there.
    public func start(until cap: Timestamp? = nil, timeout: Double? = nil) async throws(LatchkeyError) -> Pending {
        let url = try EndpointExchange.endpointURL(client.metadata.deviceAuthorizationEndpoint,
                                                   name: "device_authorization_endpoint")
        var params: [(String, String)] = []
        if !client.configuration.scopes.isEmpty { params.append(("scope", client.configuration.scopeString)) }
        var pkce: PKCE?
        if Self.usesPKCE(client.configuration.pkce, metadata: client.metadata) {
            let pair = PKCE(random: random)
            pkce = pair
            params.append(("code_challenge", pair.challenge))
            params.append(("code_challenge_method", "S256"))
        }
        let request = ProviderRequest(role: .deviceAuthorization, url: url, form: params)
        // A lost or 5xx answer is retried twice (after 1 s, then 2 s): a second request only makes
        // another device code, and the unused one simply expires.
        var attempt = 0
        func remaining() -> Double? { cap.map { $0.timeIntervalSince(time.now()) } }
        while true {
            attempt += 1
            let response: HTTPResponse
            var pipeline = client.pipeline
            if let left = remaining() {
                if left <= 0 { throw .timedOut(seconds: timeout ?? 0) }
                pipeline.timeout = max(min(pipeline.timeout, left), 1)
            }
            do {
                response = try await pipeline.send(request)
            } catch {
                if let left = remaining(), left <= 0, case .network = error { throw .timedOut(seconds: timeout ?? 0) }
                guard attempt < Self.startAttempts, case .network(let e) = error, Self.isRetryable(e) else { throw error }
                do { try await time.sleep(seconds: Double(attempt)) } catch { throw .cancelled }
                continue
            }
            if response.status >= 500, attempt < Self.startAttempts {
                do { try await time.sleep(seconds: Double(attempt)) } catch { throw .cancelled }
                continue
            }
            let received = time.now()
            try client.checkClientAuthentication(response, endpoint: .deviceAuthorization)
            let authorization = try DeviceAuthorizationResponse.parse(response)
            return Pending(authorization: authorization, pkce: pkce, receivedAt: received)
        }
    }

    /// Attempts at the device authorization request.
    public static let startAttempts = 3

    /// Starts, reports `.verification`, and polls until a token, a refusal, the deadline or `timeout`.
    public func run(timeout: Double? = nil, events: LoginEventHandler = { _ in }) async throws(LatchkeyError) -> TokenResponse {
        let started = time.now()
        let pending = try await start(until: timeout.map { started.addingTimeInterval($0) }, timeout: timeout)
        events(.verification(pending.authorization, expiresAt: pending.expiresAt))
        // The cap counts from the start of the login, not from the device response.
        return try await poll(pending, cap: timeout.map { started.addingTimeInterval($0) }, timeout: timeout, events: events)
    }

    /// Polls the token endpoint for `pending` (RFC 8628 §3.4–3.5).
    public func poll(_ pending: Pending, timeout: Double? = nil, events: LoginEventHandler = { _ in }) async throws(LatchkeyError) -> TokenResponse {
        try await poll(pending, cap: timeout.map { time.now().addingTimeInterval($0) }, timeout: timeout, events: events)
    }

    /// Polls until `cap` at the latest; `timeout` is only what the `.timedOut` error reports.
    func poll(_ pending: Pending, cap: Timestamp?, timeout: Double?, events: LoginEventHandler) async throws(LatchkeyError) -> TokenResponse {
        let deadline = pending.expiresAt
        var interval = Double(max(pending.authorization.interval, 1))
        var wait = interval
        var lastArrival = pending.receivedAt
        var failures = 0
        var params = [("grant_type", "urn:ietf:params:oauth:grant-type:device_code"),
                      ("device_code", pending.authorization.deviceCode)]
        if let pkce = pending.pkce { params.append(("code_verifier", pkce.verifier)) }

        while true {
            let next = lastArrival.addingTimeInterval(wait)
            // No poll can happen before the end: wait out the remaining time, so the end is reported
            // when the countdown the user sees reaches zero, not an interval early.
            if next > deadline || (cap.map { next > $0 } ?? false) {
                let end = min(deadline, cap ?? deadline)
                do { try await time.sleep(seconds: max(end.timeIntervalSince(time.now()), 0)) } catch { throw .cancelled }
                if let cap, let timeout, cap <= deadline { throw .timedOut(seconds: timeout) }
                throw .expired(reason: "the device code expired before it was approved")
            }
            let delay = next.timeIntervalSince(time.now())
            do { try await time.sleep(seconds: max(delay, 0)) } catch { throw .cancelled }
            if Task.isCancelled { throw .cancelled }

            let outcome: TokenResponse.Outcome
            let response: HTTPResponse
            do {
                // A request in flight must not outlive the flow: cut its deadline to what is left.
                let end = min(deadline, cap ?? deadline)
                (outcome, response) = try await client.bounded(to: end.timeIntervalSince(time.now())).request(params)
            } catch {
                guard case .network(let e) = error, Self.isRetryable(e) else { throw error }
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
            case .error(.unexpectedStatus(let status)) where status >= 500 || status == 429:
                failures += 1
                wait = backoff(interval: interval, failures: failures)
                events(.retrying(reason: "HTTP \(status)", nextPollIn: Int(wait.rounded(.up))))
            case .error(let e):
                throw DeviceErrorMapping.error(for: e, endpoint: .token)
            }
        }
    }

    /// Exponential backoff from the interval, capped, never below the interval.
    private func backoff(interval: Double, failures: Int) -> Double {
        let factor = Double(1 << min(failures, 6))
        return max(interval, min(interval * factor, Self.maxBackoff))
    }

    /// Transport failures worth another poll. A response cut off mid-way shows up as a protocol
    /// violation from the HTTP layer; a poll is safe to repeat, so it is retried too. TLS failures
    /// (certificate, hostname) are not: they will not fix themselves.
    static func isRetryable(_ e: HTTPError) -> Bool {
        switch e {
        case .dnsFailure, .connectFailed, .timedOut, .ioFailure, .proxyFailure, .protocolViolation: return true
        case .tlsFailure, .invalidURL, .unusableProxy, .cancelled: return false
        }
    }
}
