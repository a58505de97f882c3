import LatchkeyHTTP

/// Talks to the token and revocation endpoints for one client (RFC 6749 §4–6, RFC 8628 §3.4, RFC 7009).
/// Never follows redirects; always asks for JSON; authenticates the client as configured.
public struct TokenClient: Sendable {
    /// The client.
    public let configuration: ClientConfiguration
    /// Endpoints (discovered or stored, overrides applied).
    public let metadata: ProviderMetadata
    var exchange: EndpointExchange
    let auth: ClientAuthentication

    /// Makes a client; `clientSecret` is only used with the `client_secret_*` methods.
    public init(configuration: ClientConfiguration, metadata: ProviderMetadata, transport: any HTTPTransport,
                clientSecret: String? = nil) {
        self.configuration = configuration
        self.metadata = metadata
        self.exchange = EndpointExchange(transport: transport)
        self.auth = ClientAuthentication(clientID: configuration.clientID, method: configuration.authMethod, secret: clientSecret)
    }

    /// The same client with each request's deadline cut to `seconds` (at least 1 s), so a stalled
    /// server cannot hold a flow past its own deadline.
    func bounded(to seconds: Double) -> TokenClient {
        var copy = self
        copy.exchange.timeout = max(min(exchange.timeout, seconds), 1)
        return copy
    }

    /// Sends one token request and returns the parsed outcome plus the raw response (for its `Date` header).
    /// Transport failures throw; OAuth errors come back in the outcome so the caller decides (polling).
    public func request(_ params: [(String, String)]) async throws(LatchkeyError) -> (TokenResponse.Outcome, HTTPResponse) {
        let url = try EndpointExchange.endpointURL(metadata.tokenEndpoint, name: "token_endpoint")
        let (body, headers) = try auth.apply(to: params)
        let response = try await exchange.postForm(url, body, headers: headers)
        return (TokenResponse.parse(response), response)
    }

    /// Exchanges an authorization code (RFC 6749 §4.1.3 with RFC 7636 §4.5's `code_verifier`).
    public func exchangeCode(_ code: String, redirectURI: String, verifier: String) async throws(LatchkeyError) -> TokenResponse {
        let (outcome, _) = try await request([
            ("grant_type", "authorization_code"), ("code", code), ("redirect_uri", redirectURI), ("code_verifier", verifier),
        ])
        return try Self.require(outcome, context: .codeExchange)
    }

    /// Refreshes (RFC 6749 §6). `invalid_grant` (or Glewlwyd's empty 400) becomes `.reauthenticationRequired`.
    public func refresh(refreshToken: String, scope: String? = nil) async throws(LatchkeyError) -> TokenResponse {
        var params = [("grant_type", "refresh_token"), ("refresh_token", refreshToken)]
        if let scope { params.append(("scope", scope)) }
        let (outcome, _) = try await request(params)
        return try Self.require(outcome, context: .refresh)
    }

    /// Revokes `token` (RFC 7009). Returns nil on success, or a warning line on failure; never throws,
    /// since a failed revocation must not stop a local logout. When a public client's client_id-only
    /// request gets 401 (Glewlwyd), it retries once with `Authorization: Bearer <accessToken>`.
    public func revoke(_ token: String, typeHint: String, accessToken: String?) async -> String? {
        guard let endpoint = metadata.revocationEndpoint else {
            return "not revoking the \(hintName(typeHint)): the provider has no revocation endpoint (pass --revocation-endpoint)"
        }
        guard let url = HTTPURL(string: endpoint) else {
            return "not revoking the \(hintName(typeHint)): revocation endpoint \(endpoint) is not https"
        }
        let params = [("token", token), ("token_type_hint", typeHint)]
        do {
            let (body, headers) = try auth.apply(to: params)
            var response = try await exchange.postForm(url, body, headers: headers)
            if response.status == 401, configuration.authMethod == .none, let accessToken {
                response = try await exchange.postForm(url, body, headers: [("Authorization", "Bearer " + accessToken)])
            }
            // RFC 7009 §2.2: 200 for success, including tokens already invalid.
            if (200..<300).contains(response.status) { return nil }
            let detail: String
            if case .error(let e) = TokenResponse.parse(response) { detail = e.description } else { detail = "HTTP \(response.status)" }
            return "revoking the \(hintName(typeHint)) failed: \(detail)"
        } catch {
            return "revoking the \(hintName(typeHint)) failed: \(error.message)"
        }
    }

    private func hintName(_ hint: String) -> String {
        hint == "refresh_token" ? "refresh token" : "access token"
    }

    enum Context { case codeExchange, refresh }

    /// A token, or the error mapped for the context.
    static func require(_ outcome: TokenResponse.Outcome, context: Context) throws(LatchkeyError) -> TokenResponse {
        switch outcome {
        case .token(let t): return t
        case .error(let e):
            switch (context, e) {
            case (.refresh, .server("invalid_grant", let d, _)):
                throw .reauthenticationRequired(reason: "the refresh token was rejected" + (d.map { " (\($0))" } ?? ""))
            case (_, .server("access_denied", let d, _)):
                throw .denied(code: "access_denied", description: d)
            case (_, .malformedResponse(let r)):
                throw .protocolViolation(r)
            default:
                throw .oauth(e)
            }
        }
    }
}
