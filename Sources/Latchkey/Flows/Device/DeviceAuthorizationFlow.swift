import LatchkeyCrypto
import LatchkeyHTTP

/// The device authorization grant (RFC 8628): request a code, show it, poll until the user decides.
///
/// Polling follows `TokenPolling` (shared with CIBA): the interval counts from when the previous
/// response arrived, `slow_down` adds 5 s, the `expires_in` deadline is enforced client-side, and
/// network errors and 5xx are retried with backoff until the deadline.
struct DeviceAuthorizationFlow: Sendable {
    /// The token client (endpoints, client authentication).
    let client: TokenClient
    let time: any TimeSource
    let random: any RandomSource

    /// Longest wait between retries after network errors or 5xx.
    static let maxBackoff: Double = 60

    /// Makes a flow.
    init(client: TokenClient, time: any TimeSource, random: any RandomSource) {
        self.client = client
        self.time = time
        self.random = random
    }

    /// A started device authorization: what to show, and what polling needs.
    struct Pending: Sendable {
        /// The server's response.
        let authorization: DeviceAuthorizationResponse
        /// The PKCE pair sent with the request, if any.
        let pkce: PKCE?
        /// When the response arrived; the interval and the deadline count from here.
        let receivedAt: Timestamp
        /// When the device code expires (`receivedAt + expires_in`).
        var expiresAt: Timestamp { receivedAt.addingTimeInterval(Double(authorization.expiresIn)) }
    }

    /// Whether the device request carries PKCE under `mode`.
    static func usesPKCE(_ mode: PKCEMode, metadata: ProviderMetadata) -> Bool {
        switch mode {
        case .always: return true
        case .never: return false
        case .auto: return metadata.codeChallengeMethodsSupported?.contains("S256") ?? false
        }
    }

    /// Sends the device authorization request (RFC 8628 §3.1). With `until`, no request or retry
    /// runs past that instant (the `--timeout` cap): the flow ends with `.timedOut` there.
    func start(until cap: Timestamp? = nil, timeout: Double? = nil) async throws(LatchkeyError) -> Pending {
        let url = try EndpointExchange.endpointURL(
            client.metadata.deviceAuthorizationEndpoint,
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
        params += client.authorizationRequestExtensions
        let request = ProviderRequest(role: .deviceAuthorization, url: url, form: params)
        // A transient failure is retried twice (TransientFailure, 1 s then 2 s apart or the server's
        // Retry-After): a second request only makes another device code, and the unused one simply
        // expires. No pause and no attempt runs past the login's deadline.
        func remaining() -> Double? { cap.map { $0.timeIntervalSince(time.now()) } }
        let response = try await TransientFailure.retrying(.deviceAuthorization, time: time, until: cap) { () throws(LatchkeyError) in
            var binding = client.binding
            if let left = remaining() {
                if left <= 0 { throw .timedOut(seconds: timeout ?? 0) }
                binding = binding.bounded(to: left)
            }
            do throws(LatchkeyError) {
                return try await binding.attempt(request)
            } catch {
                if let left = remaining(), left <= 0, case .network = error { throw .timedOut(seconds: timeout ?? 0) }
                throw error
            }
        }
        let received = time.now()
        try client.checkClientAuthentication(response, endpoint: .deviceAuthorization)
        let authorization = try DeviceAuthorizationResponse.parse(response)
        return Pending(authorization: authorization, pkce: pkce, receivedAt: received)
    }

    /// Attempts at the device authorization request.
    static let startAttempts = TransientFailure.quickAttempts

    /// Starts, reports `.verification`, and polls until a token, a refusal, the deadline or `timeout`.
    func run(timeout: Double? = nil, events: LoginEventHandler = { _ in }) async throws(LatchkeyError) -> TokenResponse {
        let started = time.now()
        let pending = try await start(until: timeout.map { started.addingTimeInterval($0) }, timeout: timeout)
        events(.verification(pending.authorization, expiresAt: pending.expiresAt))
        // The cap counts from the start of the login, not from the device response.
        return try await poll(pending, cap: timeout.map { started.addingTimeInterval($0) }, timeout: timeout, events: events)
    }

    /// Polls the token endpoint for `pending` (RFC 8628 §3.4–3.5).
    func poll(_ pending: Pending, timeout: Double? = nil, events: LoginEventHandler = { _ in }) async throws(LatchkeyError)
        -> TokenResponse
    {
        try await poll(pending, cap: timeout.map { time.now().addingTimeInterval($0) }, timeout: timeout, events: events)
    }

    /// Polls until `cap` at the latest; `timeout` is only what the `.timedOut` error reports.
    func poll(_ pending: Pending, cap: Timestamp?, timeout: Double?, events: LoginEventHandler) async throws(LatchkeyError) -> TokenResponse
    {
        var params = [
            ("grant_type", "urn:ietf:params:oauth:grant-type:device_code"),
            ("device_code", pending.authorization.deviceCode)
        ]
        if let pkce = pending.pkce { params.append(("code_verifier", pkce.verifier)) }
        return try await TokenPolling(
            client: client, time: time, parameters: params, interval: pending.authorization.interval,
            receivedAt: pending.receivedAt, deadline: pending.expiresAt,
            expiryReason: "the device code expired before it was approved"
        )
        .run(cap: cap, timeout: timeout, events: events)
    }
}
