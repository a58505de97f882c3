import LatchkeyHTTP

/// OpenID Connect Client-Initiated Backchannel Authentication in poll mode (CIBA Core 1.0): the
/// device names the person (`login_hint`), the provider asks them on their own device, and the
/// client polls the token endpoint with the `auth_req_id` under the device grant's rules
/// (`TokenPolling`). No URL and no code is shown, so there is nothing for a phishing page to
/// relay. The request needs client authentication, which the binding adds
/// (`EndpointRole.backchannelAuthentication`), with a DPoP proof when the session has a key.
struct BackchannelAuthenticationFlow: Sendable {
    /// The token client (endpoints, client authentication, proofs).
    let client: TokenClient
    let time: any TimeSource

    /// The token request's grant type (CIBA Core §10.1).
    static let grantType = "urn:openid:params:grant-type:ciba"
    /// The only delivery mode Latchkey implements: the client polls (§5).
    static let pollMode = "poll"

    /// Makes a flow.
    init(client: TokenClient, time: any TimeSource) {
        self.client = client
        self.time = time
    }

    /// A started request: whom it asks, the server's answer, and the deadline.
    struct Pending: Sendable {
        /// What was asked.
        let request: BackchannelAuthenticationRequest
        /// The server's answer.
        let response: BackchannelAuthenticationResponse
        /// When the answer arrived; the interval and the deadline count from here.
        let receivedAt: Timestamp
        /// When the request expires (`receivedAt + expires_in`).
        var expiresAt: Timestamp { receivedAt.addingTimeInterval(Double(response.expiresIn)) }
    }

    /// Throws unless the metadata offers CIBA in poll mode: no endpoint is a configuration
    /// problem (the provider does not do CIBA); ping or push only is a refusal of this client,
    /// which cannot receive callbacks.
    static func requirePollMode(_ metadata: ProviderMetadata) throws(LatchkeyError) -> HTTPURL {
        let url = try EndpointExchange.endpointURL(
            metadata.backchannelAuthenticationEndpoint,
            name: "backchannel_authentication_endpoint")
        let modes = metadata.backchannelTokenDeliveryModesSupported ?? []
        guard modes.contains(pollMode) else {
            let offered = modes.isEmpty ? "none" : modes.joined(separator: ", ")
            throw .protocolViolation(
                "the provider's backchannel_token_delivery_modes_supported (\(offered)) lacks poll,"
                    + " the only CIBA mode a client without a callback endpoint can use")
        }
        return url
    }

    /// Sends the authentication request (§7.1). It is sent again only when the server cannot have
    /// acted on it (`TransientFailure.repeats`): a repeat would ask the person twice. With `until`,
    /// it is cut short there (`.timedOut`).
    func start(
        _ request: BackchannelAuthenticationRequest, until cap: Timestamp? = nil,
        timeout: Double? = nil
    ) async throws(LatchkeyError) -> Pending {
        let url = try Self.requirePollMode(client.metadata)
        var form: [(String, String)] = []
        if !client.configuration.scopes.isEmpty { form.append(("scope", client.configuration.scopeString)) }
        form += request.form
        // RFC 8707 resources and the profile's extra parameters, as on the device and code flows.
        form += client.authorizationRequestExtensions
        var bounded = client
        if let cap {
            let left = cap.timeIntervalSince(time.now())
            if left <= 0 { throw .timedOut(seconds: timeout ?? 0) }
            bounded = client.bounded(to: left)
        }
        let response = try await bounded.send(ProviderRequest(role: .backchannelAuthentication, url: url, form: form), until: cap)
        let received = time.now()
        return Pending(request: request, response: try BackchannelAuthenticationResponse.parse(response), receivedAt: received)
    }

    /// Starts, reports `.backchannel`, and polls until a token, a refusal, the deadline or
    /// `timeout`. Returns the token response and the `auth_req_id`, which the ID token must echo.
    func run(
        _ request: BackchannelAuthenticationRequest, timeout: Double? = nil,
        events: LoginEventHandler = { _ in }
    ) async throws(LatchkeyError) -> (response: TokenResponse, authRequestID: String) {
        let cap = timeout.map { time.now().addingTimeInterval($0) }
        let pending = try await start(request, until: cap, timeout: timeout)
        events(.backchannel(request, pending.response, expiresAt: pending.expiresAt))
        let token = try await poll(pending, cap: cap, timeout: timeout, events: events)
        return (token, pending.response.authRequestID)
    }

    /// Polls the token endpoint for `pending` (§7.3, §11) until `cap` at the latest.
    func poll(
        _ pending: Pending, cap: Timestamp? = nil, timeout: Double? = nil,
        events: LoginEventHandler = { _ in }
    ) async throws(LatchkeyError) -> TokenResponse {
        try await TokenPolling(
            client: client, time: time,
            parameters: [("grant_type", Self.grantType), ("auth_req_id", pending.response.authRequestID)],
            interval: pending.response.interval, receivedAt: pending.receivedAt,
            deadline: pending.expiresAt,
            expiryReason: "the authentication request expired before it was approved"
        )
        .run(cap: cap, timeout: timeout, events: events)
    }
}
