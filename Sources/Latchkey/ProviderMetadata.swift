import LatchkeyJOSE

/// Authorization-server metadata (OIDC Discovery 1.0 §3 / RFC 8414 §2), the part Latchkey uses.
/// Kept in the token file so a refresh needs no discovery.
public struct ProviderMetadata: Sendable, Equatable, Codable {
    /// The issuer identifier; must equal the configured issuer exactly.
    public var issuer: String
    /// Authorization endpoint (code flow).
    public var authorizationEndpoint: String?
    /// Token endpoint. Required for every grant.
    public var tokenEndpoint: String?
    /// RFC 8628 device authorization endpoint.
    public var deviceAuthorizationEndpoint: String?
    /// RFC 7009 revocation endpoint.
    public var revocationEndpoint: String?
    /// The JWKS URL for ID-token signatures.
    public var jwksURI: String?
    /// UserInfo endpoint (informational).
    public var userinfoEndpoint: String?
    /// Advertised ID-token signing algorithms.
    public var idTokenSigningAlgValuesSupported: [String]?
    /// Advertised PKCE methods; `--pkce auto` sends S256 on the device request when this has it.
    public var codeChallengeMethodsSupported: [String]?
    /// Advertised scopes (informational).
    public var scopesSupported: [String]?
    /// Advertised grant types (informational only: Glewlwyd omits `refresh_token` yet supports it).
    public var grantTypesSupported: [String]?
    /// Advertised client auth methods (informational only, same reason).
    public var tokenEndpointAuthMethodsSupported: [String]?
    /// RFC 9207: the server sends `iss` in authorization responses.
    public var authorizationResponseIssParameterSupported: Bool?

    /// Metadata with only the issuer set; endpoints are filled in by discovery or overrides.
    public init(issuer: String) { self.issuer = issuer }

    enum CodingKeys: String, CodingKey, CaseIterable {
        case issuer
        case authorizationEndpoint = "authorization_endpoint"
        case tokenEndpoint = "token_endpoint"
        case deviceAuthorizationEndpoint = "device_authorization_endpoint"
        case revocationEndpoint = "revocation_endpoint"
        case jwksURI = "jwks_uri"
        case userinfoEndpoint = "userinfo_endpoint"
        case idTokenSigningAlgValuesSupported = "id_token_signing_alg_values_supported"
        case codeChallengeMethodsSupported = "code_challenge_methods_supported"
        case scopesSupported = "scopes_supported"
        case grantTypesSupported = "grant_types_supported"
        case tokenEndpointAuthMethodsSupported = "token_endpoint_auth_methods_supported"
        case authorizationResponseIssParameterSupported = "authorization_response_iss_parameter_supported"
    }
}

extension ProviderMetadata {
    /// The standard member names this type reads (OIDC Discovery §3 / RFC 8414 §2).
    public static let memberNames: Set<String> = Set(CodingKeys.allCases.map(\.rawValue))

    /// The metadata as a JSON object with the standard member names; absent members left out.
    public var json: JSONObject {
        var o = JSONObject()
        o["issuer"] = .string(issuer)
        func put(_ key: CodingKeys, _ value: String?) { if let value { o[key.rawValue] = .string(value) } }
        func put(_ key: CodingKeys, _ value: [String]?) { if let value { o[key.rawValue] = .array(value.map(JSONValue.string)) } }
        put(.authorizationEndpoint, authorizationEndpoint)
        put(.tokenEndpoint, tokenEndpoint)
        put(.deviceAuthorizationEndpoint, deviceAuthorizationEndpoint)
        put(.revocationEndpoint, revocationEndpoint)
        put(.jwksURI, jwksURI)
        put(.userinfoEndpoint, userinfoEndpoint)
        put(.idTokenSigningAlgValuesSupported, idTokenSigningAlgValuesSupported)
        put(.codeChallengeMethodsSupported, codeChallengeMethodsSupported)
        put(.scopesSupported, scopesSupported)
        put(.grantTypesSupported, grantTypesSupported)
        put(.tokenEndpointAuthMethodsSupported, tokenEndpointAuthMethodsSupported)
        if let b = authorizationResponseIssParameterSupported {
            o[CodingKeys.authorizationResponseIssParameterSupported.rawValue] = .bool(b)
        }
        return o
    }
}
