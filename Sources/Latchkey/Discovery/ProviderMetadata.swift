import LatchkeyJOSE

/// Authorization-server metadata (OIDC Discovery 1.0 §3 / RFC 8414 §2), the part Latchkey uses.
/// Kept in the token file so a refresh needs no discovery.
public struct ProviderMetadata: Sendable, Equatable {
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
    /// OpenID Connect RP-Initiated Logout 1.0 §2.1: where a person ends their session at the provider.
    public var endSessionEndpoint: String?
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
    /// RFC 9449 §5.1: the proof algorithms the server accepts; `--dpop auto` uses DPoP when ES256 is listed.
    public var dpopSigningAlgValuesSupported: [String]?
    /// RFC 9207: the server sends `iss` in authorization responses.
    public var authorizationResponseIssParameterSupported: Bool?
    /// RFC 9126 §5: where authorization requests are pushed.
    public var pushedAuthorizationRequestEndpoint: String?
    /// RFC 9126 §5: the provider accepts only pushed authorization requests.
    public var requirePushedAuthorizationRequests: Bool?
    /// RFC 8705 §5: where a client presenting its certificate sends its requests instead.
    package var mtlsEndpointAliases: MTLSEndpointAliases?
    /// OpenID CIBA Core §4: where a backchannel authentication request is posted.
    public var backchannelAuthenticationEndpoint: String?
    /// OpenID CIBA Core §4: `poll`, `ping`, `push`; Latchkey needs `poll`.
    public var backchannelTokenDeliveryModesSupported: [String]?
    /// The algorithms the server accepts for client assertions (`private_key_jwt`); when listed,
    /// the client's algorithm must be one of them.
    public var tokenEndpointAuthSigningAlgValuesSupported: [String]?

    /// Metadata with only the issuer set; endpoints are filled in by discovery or overrides.
    public init(issuer: String) { self.issuer = issuer }

}

// The one codec for provider metadata: its member tables serve discovery, the token file and
// `discover`, so a member added here is read and written everywhere (see the round-trip test).
// Name lists with switch accessors, not key paths or generic rows: both are built at run time
// from mangled type names, which was most of a cached `latchkey token` (docs/performance.md).
extension ProviderMetadata {
    /// Members holding one URL or string.
    static let stringMembers: [String] = [
        "authorization_endpoint",
        "token_endpoint",
        "device_authorization_endpoint",
        "revocation_endpoint",
        "jwks_uri",
        "userinfo_endpoint",
        "end_session_endpoint",
        "pushed_authorization_request_endpoint",
        "backchannel_authentication_endpoint"
    ]
    /// The member named `name` of `stringMembers`.
    func string(_ name: String) -> String? {
        switch name {
        case "authorization_endpoint": return authorizationEndpoint
        case "token_endpoint": return tokenEndpoint
        case "device_authorization_endpoint": return deviceAuthorizationEndpoint
        case "revocation_endpoint": return revocationEndpoint
        case "jwks_uri": return jwksURI
        case "userinfo_endpoint": return userinfoEndpoint
        case "end_session_endpoint": return endSessionEndpoint
        case "pushed_authorization_request_endpoint": return pushedAuthorizationRequestEndpoint
        case "backchannel_authentication_endpoint": return backchannelAuthenticationEndpoint
        default: return nil
        }
    }
    /// Sets the member named `name` of `stringMembers`.
    mutating func setString(_ name: String, _ value: String?) {
        switch name {
        case "authorization_endpoint": authorizationEndpoint = value
        case "token_endpoint": tokenEndpoint = value
        case "device_authorization_endpoint": deviceAuthorizationEndpoint = value
        case "revocation_endpoint": revocationEndpoint = value
        case "jwks_uri": jwksURI = value
        case "userinfo_endpoint": userinfoEndpoint = value
        case "end_session_endpoint": endSessionEndpoint = value
        case "pushed_authorization_request_endpoint": pushedAuthorizationRequestEndpoint = value
        case "backchannel_authentication_endpoint": backchannelAuthenticationEndpoint = value
        default: break
        }
    }
    /// Members holding a list of strings.
    static let listMembers: [String] = [
        "id_token_signing_alg_values_supported",
        "code_challenge_methods_supported",
        "scopes_supported",
        "grant_types_supported",
        "token_endpoint_auth_methods_supported",
        "dpop_signing_alg_values_supported",
        "backchannel_token_delivery_modes_supported",
        "token_endpoint_auth_signing_alg_values_supported"
    ]
    /// The member named `name` of `listMembers`.
    func list(_ name: String) -> [String]? {
        switch name {
        case "id_token_signing_alg_values_supported": return idTokenSigningAlgValuesSupported
        case "code_challenge_methods_supported": return codeChallengeMethodsSupported
        case "scopes_supported": return scopesSupported
        case "grant_types_supported": return grantTypesSupported
        case "token_endpoint_auth_methods_supported": return tokenEndpointAuthMethodsSupported
        case "dpop_signing_alg_values_supported": return dpopSigningAlgValuesSupported
        case "backchannel_token_delivery_modes_supported": return backchannelTokenDeliveryModesSupported
        case "token_endpoint_auth_signing_alg_values_supported": return tokenEndpointAuthSigningAlgValuesSupported
        default: return nil
        }
    }
    /// Sets the member named `name` of `listMembers`.
    mutating func setList(_ name: String, _ value: [String]?) {
        switch name {
        case "id_token_signing_alg_values_supported": idTokenSigningAlgValuesSupported = value
        case "code_challenge_methods_supported": codeChallengeMethodsSupported = value
        case "scopes_supported": scopesSupported = value
        case "grant_types_supported": grantTypesSupported = value
        case "token_endpoint_auth_methods_supported": tokenEndpointAuthMethodsSupported = value
        case "dpop_signing_alg_values_supported": dpopSigningAlgValuesSupported = value
        case "backchannel_token_delivery_modes_supported": backchannelTokenDeliveryModesSupported = value
        case "token_endpoint_auth_signing_alg_values_supported": tokenEndpointAuthSigningAlgValuesSupported = value
        default: break
        }
    }
    /// Members holding a boolean.
    static let flagMembers: [String] = [
        "authorization_response_iss_parameter_supported",
        "require_pushed_authorization_requests"
    ]
    /// The member named `name` of `flagMembers`.
    func flag(_ name: String) -> Bool? {
        switch name {
        case "authorization_response_iss_parameter_supported": return authorizationResponseIssParameterSupported
        case "require_pushed_authorization_requests": return requirePushedAuthorizationRequests
        default: return nil
        }
    }
    /// Sets the member named `name` of `flagMembers`.
    mutating func setFlag(_ name: String, _ value: Bool?) {
        switch name {
        case "authorization_response_iss_parameter_supported": authorizationResponseIssParameterSupported = value
        case "require_pushed_authorization_requests": requirePushedAuthorizationRequests = value
        default: break
        }
    }
    /// Every member name Latchkey models (the rest of a provider's document is `DiscoveredProvider`'s).
    public static var memberNames: [String] {
        ["issuer"] + stringMembers + listMembers + flagMembers
            + [MTLSEndpointAliases.memberName]
    }

    /// Reads metadata, every modelled member type-checked; other members are ignored.
    /// `lenient` (what providers send): a modelled member of the wrong type counts as absent and
    /// non-strings in a list are skipped, as discovery always tolerated; strict for Latchkey's own files.
    public init(json: JSONObject, lenient: Bool = false) throws(DocumentError) {
        let m = JSONMembers(json)
        self.init(issuer: try m.requiredString("issuer"))
        for name in Self.stringMembers {
            setString(name, lenient ? json[name]?.stringValue : try m.string(name))
        }
        for name in Self.listMembers {
            setList(name, lenient ? json[name]?.arrayValue?.compactMap(\.stringValue) : try m.strings(name))
        }
        for name in Self.flagMembers {
            setFlag(name, lenient ? json[name]?.boolValue : try m.bool(name))
        }
        // Strict even when lenient: see `MTLSEndpointAliases.init(json:)`.
        if let aliases = m.value(MTLSEndpointAliases.memberName) { mtlsEndpointAliases = try MTLSEndpointAliases(json: aliases) }
    }

    /// The metadata as JSON: modelled members in table order, unset ones left out.
    public var json: JSONObject {
        var o = JSONObject()
        o["issuer"] = .string(issuer)
        for name in Self.stringMembers { o.setIfPresent(name, string(name)) }
        for name in Self.listMembers { o.setIfPresent(name, list(name)) }
        for name in Self.flagMembers { o.setIfPresent(name, flag(name)) }
        if let aliases = mtlsEndpointAliases { o[MTLSEndpointAliases.memberName] = .object(aliases.json) }
        return o
    }
}

extension ProviderMetadata {
    /// The metadata a client presenting a certificate acts on (RFC 8705 §5): each endpoint that has
    /// an alias replaced by it; the same metadata when there are none.
    public var usingMutualTLSAliases: ProviderMetadata {
        guard let aliases = mtlsEndpointAliases else { return self }
        var m = self
        if let token = aliases.tokenEndpoint { m.tokenEndpoint = token }
        if let revocation = aliases.revocationEndpoint { m.revocationEndpoint = revocation }
        if let device = aliases.deviceAuthorizationEndpoint { m.deviceAuthorizationEndpoint = device }
        if let par = aliases.pushedAuthorizationRequestEndpoint { m.pushedAuthorizationRequestEndpoint = par }
        if let ciba = aliases.backchannelAuthenticationEndpoint { m.backchannelAuthenticationEndpoint = ciba }
        return m
    }

    /// Each alias URL mapped to the ordinary endpoint of the same role, where both are set and differ.
    public var ordinaryEndpointsByAlias: [String: String] {
        guard let aliases = mtlsEndpointAliases else { return [:] }
        let pairs: [(String?, String?)] = [
            (aliases.tokenEndpoint, tokenEndpoint), (aliases.revocationEndpoint, revocationEndpoint),
            (aliases.deviceAuthorizationEndpoint, deviceAuthorizationEndpoint),
            (aliases.pushedAuthorizationRequestEndpoint, pushedAuthorizationRequestEndpoint),
            (aliases.backchannelAuthenticationEndpoint, backchannelAuthenticationEndpoint)
        ]
        var map: [String: String] = [:]
        for case let (alias?, ordinary?) in pairs where alias != ordinary { map[alias] = ordinary }
        return map
    }
}
