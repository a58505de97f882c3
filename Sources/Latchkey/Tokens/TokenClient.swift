import LatchkeyCrypto
import LatchkeyHTTP

/// Talks to the token and revocation endpoints for one client (RFC 6749 §4–6, RFC 8628 §3.4, RFC 7009).
/// Never follows redirects; always asks for JSON; every request goes through the session's
/// `SessionBinding`, which adds the client's authentication and, for a bound session, DPoP proofs.
struct TokenClient: Sendable {
    /// The client.
    let configuration: ClientConfiguration
    /// Endpoints (discovered or stored, overrides applied); with a client certificate presented,
    /// the `mtls_endpoint_aliases` in place of the ordinary ones (RFC 8705 §5).
    let metadata: ProviderMetadata
    /// The session's credentials, and the one loop that sends them.
    var binding: SessionBinding
    /// True refuses a `Bearer` answer to a DPoP proof: `DPoPMode.always`, or a bound session
    /// refreshing (its refresh token stays bound).
    var requiresBinding: Bool
    /// What this sign-in asks of the person's authentication (`acr_values`, `max_age`): sent on
    /// the request that starts the authorization and checked on its ID token. Per sign-in, never
    /// stored with the profile's settings and never checked on refresh.
    var authentication = AuthenticationRequirement()

    /// What the client adds to the request that starts an authorization: the configuration's
    /// extensions and `authentication`'s parameters.
    var authorizationRequestExtensions: [(String, String)] {
        configuration.authorizationRequestExtensions(asking: authentication)
    }

    /// Makes a client whose requests carry `binding`.
    init(configuration: ClientConfiguration, metadata: ProviderMetadata, binding: SessionBinding) {
        self.configuration = configuration
        // The configured overrides are applied (again) before any alias, so an explicit endpoint
        // wins even over a session file written with the aliases kept beside it.
        let explicit = binding.certificate == nil ? metadata : configuration.endpoints.applied(to: metadata)
        self.metadata = binding.certificate == nil ? metadata : explicit.usingMutualTLSAliases
        // Assertions name this provider's issuer and use an algorithm it advertises; bound to the
        // provider's own metadata, so an endpoint `aud` can name the ordinary endpoint of an alias.
        self.binding = binding.bound(to: explicit)
        self.requiresBinding = configuration.dpop == .always
    }

    /// The DPoP key whose proofs this client's requests carry, if any.
    var dpopKey: DPoPKey? { binding.dpopKey }

    /// The same client with each request's deadline cut to `seconds` (at least 1 s), so a stalled
    /// server cannot hold a flow past its own deadline.
    func bounded(to seconds: Double) -> TokenClient {
        var copy = self
        copy.binding = binding.bounded(to: seconds)
        return copy
    }

    /// Sends one token request and returns the parsed outcome plus the raw response (for its `Date` header).
    /// Transport failures throw; OAuth errors come back in the outcome so the caller decides (polling).
    /// Every grant carries the configured `resource` indicators (RFC 8707 §2.2), so a refreshed or
    /// renewed token keeps the audience the sign-in asked for. A transient failure is asked again
    /// (`TransientFailure`) unless `retrying` is false: polling keeps its own pace.
    func request(_ params: [(String, String)], retrying: Bool = true) async throws(LatchkeyError) -> (
        TokenResponse.Outcome, HTTPResponse
    ) {
        let url = try EndpointExchange.endpointURL(metadata.tokenEndpoint, name: "token_endpoint")
        let request = ProviderRequest(role: .token, url: url, form: params + ResourceIndicator.parameters(configuration.resources))
        let response = retrying ? try await binding.send(request) : try await binding.attempt(request)
        try checkClientAuthentication(response, endpoint: .token)
        let outcome = TokenResponse.parse(response)
        switch outcome {
        case .token(let token):
            try TokenBindingCheck.check(token, proofKey: dpopKey, requireBinding: requiresBinding)
            if let certificate = binding.certificate {
                try TokenBindingCheck.checkCertificate(token, certificateThumbprint: certificate.certificateThumbprintSHA256)
            }
        case .error:
            break
        }
        return (outcome, response)
    }

    /// Exchanges an authorization code (RFC 6749 §4.1.3 with RFC 7636 §4.5's `code_verifier`).
    func exchangeCode(_ code: String, redirectURI: String, verifier: String) async throws(LatchkeyError) -> TokenResponse {
        let (outcome, _) = try await request([
            ("grant_type", "authorization_code"), ("code", code), ("redirect_uri", redirectURI), ("code_verifier", verifier)
        ])
        return try Self.require(outcome, context: .codeExchange)
    }

    /// Refreshes (RFC 6749 §6). `invalid_grant` (or Glewlwyd's empty 400) becomes `.reauthenticationRequired`.
    /// `retrying` false sends it once: a caller holding a still-valid token rides a failure out.
    func refresh(refreshToken: String, scope: String? = nil, retrying: Bool = true) async throws(LatchkeyError) -> TokenResponse {
        var params = [("grant_type", "refresh_token"), ("refresh_token", refreshToken)]
        if let scope { params.append(("scope", scope)) }
        let (outcome, _) = try await request(params, retrying: retrying)
        return try Self.require(outcome, context: .refresh)
    }

    /// Revokes `token` (RFC 7009). Returns nil on success, or why it failed; never throws, since a
    /// failed revocation must not stop a local logout. A refusal that `ProviderQuirks.revocationFallback`
    /// answers (Glewlwyd's 401 to a public client) is sent once more as it says.
    func revoke(_ token: String, kind: TokenKind, accessToken: String?) async -> RevocationFailure? {
        guard let endpoint = metadata.revocationEndpoint else { return .noEndpoint(kind) }
        guard let url = HTTPURL(string: endpoint) else { return .insecureEndpoint(kind, endpoint: endpoint) }
        let request = ProviderRequest(role: .revocation, url: url, form: [("token", token), ("token_type_hint", kind.rawValue)])
        do {
            var response = try await binding.send(request)
            if let fallback = ProviderQuirks.revocationFallback.request(
                after: response, to: request, authMethod: configuration.authMethod,
                accessToken: accessToken, bound: dpopKey != nil)
            {
                response = try await binding.send(fallback)
            }
            // RFC 7009 §2.2: 200 for success, including tokens already invalid.
            if (200..<300).contains(response.status) { return nil }
            if case .error(let e) = TokenResponse.parse(response) { return .refused(kind, e) }
            return .refused(kind, .unexpectedStatus(response.status))
        } catch .oauth(let e, .revocation) {
            return .refused(kind, e)
        } catch {
            return .failed(kind, error)
        }
    }

    /// The client-credentials grant (RFC 6749 §4.4): the client acting as itself, authenticated by
    /// the binding like any token request. `openid` and `offline_access` are left out of `scope`:
    /// with no person there is no ID token, and no refresh token is wanted (§4.4.3).
    func clientCredentials() async throws(LatchkeyError) -> TokenResponse {
        var params = [("grant_type", "client_credentials")]
        let scopes = configuration.scopes.filter { $0 != "openid" && $0 != "offline_access" }
        if !scopes.isEmpty { params.append(("scope", scopes.joined(separator: " "))) }
        let (outcome, _) = try await request(params)
        return try Self.require(outcome, context: .clientCredentials)
    }

    /// The JWT bearer grant (RFC 7523 §2.1): `assertion` as the grant, with the client's
    /// authentication by the binding (a public client only names itself). Scopes as for client
    /// credentials: no ID token and no refresh token are wanted.
    func jwtBearer(assertion: String) async throws(LatchkeyError) -> TokenResponse {
        var params = [("grant_type", Self.jwtBearerGrantType), ("assertion", assertion)]
        let scopes = configuration.scopes.filter { $0 != "openid" && $0 != "offline_access" }
        if !scopes.isEmpty { params.append(("scope", scopes.joined(separator: " "))) }
        let (outcome, _) = try await request(params)
        return try Self.require(outcome, context: .jwtBearer)
    }

    /// RFC 7523 §2.1.
    static let jwtBearerGrantType = "urn:ietf:params:oauth:grant-type:jwt-bearer"

    /// A token exchange (RFC 8693 §2.1) with `form` (`TokenExchange.parameters`), authenticated and
    /// proved by the binding like any token request. The sign-in's own `resource` indicators are
    /// not added: the exchange names its own. `audiences` are what was asked for, the answer's
    /// audience when the token does not say.
    func exchange(_ form: [(String, String)], audiences: [String]) async throws(LatchkeyError) -> ExchangedToken {
        let url = try EndpointExchange.endpointURL(metadata.tokenEndpoint, name: "token_endpoint")
        let response = try await binding.send(ProviderRequest(role: .token, url: url, form: form))
        try checkClientAuthentication(response, endpoint: .token)
        switch TokenExchangeAnswer.parse(response, audiences: audiences, at: binding.time.now()) {
        case .token(let token):
            if token.tokenType == "DPoP" {
                guard let dpopKey else { throw .tokenBinding(.unrequestedDPoP) }
                if let jkt = TokenBindingCheck.confirmationThumbprint(token.token), jkt != dpopKey.thumbprint {
                    throw .tokenBinding(.thumbprintMismatch(expected: dpopKey.thumbprint, got: jkt))
                }
            }
            return token
        case .error(.malformedResponse(let reason)): throw .protocolViolation(reason)
        case .error(let error): throw .oauth(error, endpoint: .token)
        }
    }

    /// Pushes an authorization request (RFC 9126 §2.1): the parameters go to the provider over the
    /// back channel, authenticated like a token request (and with a DPoP proof when bound).
    func pushAuthorizationRequest(_ params: [(String, String)]) async throws(LatchkeyError) -> PushedAuthorizationResponse {
        let url = try EndpointExchange.endpointURL(
            metadata.pushedAuthorizationRequestEndpoint,
            name: "pushed_authorization_request_endpoint")
        // Sent once (`TransientFailure.repeats`); a transient status reads as at every other endpoint.
        let response = try await send(ProviderRequest(role: .pushedAuthorization, url: url, form: params))
        return try PushedAuthorizationResponse.parse(response)
    }

    /// Sends `request` under the transient rule for its role (`TransientFailure`).
    func send(_ request: ProviderRequest, until deadline: Timestamp? = nil) async throws(LatchkeyError) -> HTTPResponse {
        try await binding.send(request, until: deadline)
    }

    /// Throws `.clientAuthenticationRefused` when `response` refuses the client's own credentials in
    /// a way its authenticator can explain (`RequestAuthenticator.refusal(of:endpoint:)`).
    func checkClientAuthentication(_ response: HTTPResponse, endpoint: EndpointRole) throws(LatchkeyError) {
        if let refusal = binding.clientAuthentication.refusal(of: response, endpoint: endpoint) {
            throw .clientAuthenticationRefused(refusal)
        }
    }

    enum Context { case codeExchange, refresh, clientCredentials, jwtBearer }

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
                throw .oauth(e, endpoint: .token)
            }
        }
    }
}
