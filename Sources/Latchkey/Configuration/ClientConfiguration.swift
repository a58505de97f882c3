/// How the client proves its identity at the token endpoint (RFC 6749 §2.3).
public enum ClientAuthMethod: String, Sendable, CaseIterable {
    /// Public client: only `client_id` in the body (the default; device and CLI clients are public).
    case none
    /// `Authorization: Basic` with the form-encoded client_id and secret (RFC 6749 §2.3.1).
    case clientSecretBasic = "client_secret_basic"
    /// `client_id` and `client_secret` in the request body.
    case clientSecretPost = "client_secret_post"
    /// RFC 8705 §2.1: a certificate from a CA the provider trusts, presented in the TLS handshake;
    /// `client_id` in the body, no secret.
    case tlsClientAuth = "tls_client_auth"
    /// RFC 8705 §2.2: a self-signed certificate registered with the provider, presented the same way.
    case selfSignedTLSClientAuth = "self_signed_tls_client_auth"

    /// True for the mutual-TLS methods, which need a client certificate and its key.
    public var usesClientCertificate: Bool { self == .tlsClientAuth || self == .selfSignedTLSClientAuth }
    /// A JWT signed with the client's own private key (RFC 7523 §2.2, OpenID Connect Core §9).
    case privateKeyJWT = "private_key_jwt"
}

/// When to send a PKCE S256 challenge on the *device* authorization request (the code flow always does).
public enum PKCEMode: String, Sendable, CaseIterable {
    /// Send S256 when the metadata lists it in `code_challenge_methods_supported` (Keycloak may require it).
    case auto
    /// Always send S256.
    case always
    /// Never send PKCE on the device request.
    case never
}

/// Endpoints that replace (or fill in) what discovery returns, for providers whose metadata lacks them.
public struct EndpointOverrides: Sendable, Equatable {
    /// RFC 8628 device authorization endpoint.
    public var deviceAuthorization: String?
    /// Token endpoint.
    public var token: String?
    /// Authorization endpoint (code flow).
    public var authorization: String?
    /// RFC 7009 revocation endpoint.
    public var revocation: String?
    /// JWKS URL for ID-token signatures.
    public var jwksURI: String?

    /// Makes overrides; nil leaves the discovered value.
    public init(
        deviceAuthorization: String? = nil, token: String? = nil, authorization: String? = nil,
        revocation: String? = nil, jwksURI: String? = nil
    ) {
        self.deviceAuthorization = deviceAuthorization
        self.token = token
        self.authorization = authorization
        self.revocation = revocation
        self.jwksURI = jwksURI
    }

    /// True when no endpoint is overridden.
    public var isEmpty: Bool {
        deviceAuthorization == nil && token == nil && authorization == nil && revocation == nil && jwksURI == nil
    }

    /// `metadata` with every set override applied. An overridden endpoint loses its
    /// `mtls_endpoint_aliases` entry: an alias stands in for the endpoint the provider published
    /// (RFC 8705 §5), never for one the operator named, which wins over anything discovered.
    public func applied(to metadata: ProviderMetadata) -> ProviderMetadata {
        var m = metadata
        if let deviceAuthorization {
            m.deviceAuthorizationEndpoint = deviceAuthorization
            m.mtlsEndpointAliases?.deviceAuthorizationEndpoint = nil
        }
        if let token {
            m.tokenEndpoint = token
            m.mtlsEndpointAliases?.tokenEndpoint = nil
        }
        if let authorization { m.authorizationEndpoint = authorization }
        if let revocation {
            m.revocationEndpoint = revocation
            m.mtlsEndpointAliases?.revocationEndpoint = nil
        }
        if let jwksURI { m.jwksURI = jwksURI }
        return m
    }
}

/// Everything that identifies a client at one issuer. Holds no secret: a client secret is passed
/// at run time (from a file or the environment), so this value can be written to the profile file.
public struct ClientConfiguration: Sendable, Equatable {
    /// The issuer identifier, compared exactly with the discovered `issuer`.
    public var issuer: String
    /// The OAuth `client_id`.
    public var clientID: String
    /// Requested scopes.
    public var scopes: [String]
    /// Token-endpoint client authentication.
    public var authMethod: ClientAuthMethod
    /// Fixed redirect URI for the code flow; nil means `http://127.0.0.1:<ephemeral>/callback`.
    public var redirectURI: String?
    /// PKCE on the device authorization request.
    public var pkce: PKCEMode
    /// Endpoint overrides applied after discovery.
    public var endpoints: EndpointOverrides
    /// Accepted ID-token algorithms (JWS `alg` names); nil means every asymmetric algorithm we support.
    /// Always further limited to what discovery advertises.
    public var allowedAlgorithms: [String]?
    /// Clock leeway, in seconds, for `exp`/`iat`.
    public var leeway: Double
    /// Named provider quirks that relax an exact check (off by default).
    public var quirks: ProviderQuirks
    /// DPoP (RFC 9449): when tokens are bound to a per-session key.
    public var dpop: DPoPMode
    /// RFC 9126: when the code flow pushes its authorization request first.
    public var par: PARMode = .auto
    /// RFC 8707 resource indicators (absolute URIs without fragment), in order.
    public var resources: [String] = []
    /// Extra authorization / device / CIBA request parameters; never a protocol-owned name.
    public var extraParameters: [RequestParameter] = []
    /// How `private_key_jwt` assertions are made (algorithm, `kid`, `typ`, audience); the key itself
    /// is never part of the configuration.
    public var clientAssertion: ClientAssertionSettings = ClientAssertionSettings()

    /// The scopes used when none are given.
    public static let defaultScopes = ["openid", "offline_access"]

    /// Makes a configuration with safe defaults (public client, PKCE auto, 60 s leeway).
    public init(
        issuer: String, clientID: String, scopes: [String] = ClientConfiguration.defaultScopes,
        authMethod: ClientAuthMethod = .none, redirectURI: String? = nil, pkce: PKCEMode = .auto,
        endpoints: EndpointOverrides = EndpointOverrides(), allowedAlgorithms: [String]? = nil,
        leeway: Double = 60, quirks: ProviderQuirks = ProviderQuirks(), dpop: DPoPMode = .auto
    ) {
        self.issuer = issuer
        self.clientID = clientID
        self.scopes = scopes
        self.authMethod = authMethod
        self.redirectURI = redirectURI
        self.pkce = pkce
        self.endpoints = endpoints
        self.allowedAlgorithms = allowedAlgorithms
        self.leeway = leeway
        self.quirks = quirks
        self.dpop = dpop
    }

    /// The scopes as the space-separated `scope` parameter.
    public var scopeString: String { scopes.joined(separator: " ") }

    /// What the client adds to every request that starts an authorization (authorization or
    /// pushed, device authorization, CIBA): the `resource` indicators, then the extra parameters.
    public var authorizationRequestExtensions: [(String, String)] {
        authorizationRequestExtensions(asking: AuthenticationRequirement())
    }

    /// `authorizationRequestExtensions`, then one sign-in's `acr_values` and `max_age` (which
    /// replace extra parameters of the same name).
    public func authorizationRequestExtensions(asking authentication: AuthenticationRequirement) -> [(String, String)] {
        let owned = authentication.parameterNames
        let extra = owned.isEmpty ? extraParameters : extraParameters.filter { !owned.contains($0.name) }
        return ResourceIndicator.parameters(resources) + RequestParameter.pairs(extra) + authentication.parameters
    }
}
