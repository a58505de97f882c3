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
    public var mtlsEndpointAliases: MTLSEndpointAliases?
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

// The one codec for provider metadata: its member table serves discovery, the token file and
// `discover`, so a member added here is read and written everywhere (see the round-trip test).
extension ProviderMetadata {
    /// Members holding one URL or string.
    static let stringMembers: [DocumentMember<ProviderMetadata, String>] =
        [.init("authorization_endpoint", { $0.authorizationEndpoint }, { $0.authorizationEndpoint = $1 }),
         .init("token_endpoint", { $0.tokenEndpoint }, { $0.tokenEndpoint = $1 }),
         .init("device_authorization_endpoint", { $0.deviceAuthorizationEndpoint }, { $0.deviceAuthorizationEndpoint = $1 }),
         .init("revocation_endpoint", { $0.revocationEndpoint }, { $0.revocationEndpoint = $1 }),
         .init("jwks_uri", { $0.jwksURI }, { $0.jwksURI = $1 }),
         .init("userinfo_endpoint", { $0.userinfoEndpoint }, { $0.userinfoEndpoint = $1 }),
         .init("end_session_endpoint", { $0.endSessionEndpoint }, { $0.endSessionEndpoint = $1 }),
         .init("pushed_authorization_request_endpoint", { $0.pushedAuthorizationRequestEndpoint }, { $0.pushedAuthorizationRequestEndpoint = $1 }),
         .init("backchannel_authentication_endpoint", { $0.backchannelAuthenticationEndpoint }, { $0.backchannelAuthenticationEndpoint = $1 })]
    /// Members holding a list of strings.
    static let listMembers: [DocumentMember<ProviderMetadata, [String]>] =
        [.init("id_token_signing_alg_values_supported", { $0.idTokenSigningAlgValuesSupported }, { $0.idTokenSigningAlgValuesSupported = $1 }),
         .init("code_challenge_methods_supported", { $0.codeChallengeMethodsSupported }, { $0.codeChallengeMethodsSupported = $1 }),
         .init("scopes_supported", { $0.scopesSupported }, { $0.scopesSupported = $1 }),
         .init("grant_types_supported", { $0.grantTypesSupported }, { $0.grantTypesSupported = $1 }),
         .init("token_endpoint_auth_methods_supported", { $0.tokenEndpointAuthMethodsSupported }, { $0.tokenEndpointAuthMethodsSupported = $1 }),
         .init("dpop_signing_alg_values_supported", { $0.dpopSigningAlgValuesSupported }, { $0.dpopSigningAlgValuesSupported = $1 }),
         .init("backchannel_token_delivery_modes_supported", { $0.backchannelTokenDeliveryModesSupported }, { $0.backchannelTokenDeliveryModesSupported = $1 }),
         .init("token_endpoint_auth_signing_alg_values_supported", { $0.tokenEndpointAuthSigningAlgValuesSupported }, { $0.tokenEndpointAuthSigningAlgValuesSupported = $1 })]
    /// Members holding a boolean.
    static let flagMembers: [DocumentMember<ProviderMetadata, Bool>] =
        [.init("authorization_response_iss_parameter_supported", { $0.authorizationResponseIssParameterSupported }, { $0.authorizationResponseIssParameterSupported = $1 }),
         .init("require_pushed_authorization_requests", { $0.requirePushedAuthorizationRequests }, { $0.requirePushedAuthorizationRequests = $1 })]
    /// Every member name Latchkey models (the rest of a provider's document is `DiscoveredProvider`'s).
    public static var memberNames: [String] {
        ["issuer"] + stringMembers.map(\.name) + listMembers.map(\.name) + flagMembers.map(\.name)
            + [MTLSEndpointAliases.memberName]
    }

    /// Reads metadata, every modelled member type-checked; other members are ignored.
    /// `lenient` (what providers send): a modelled member of the wrong type counts as absent and
    /// non-strings in a list are skipped, as discovery always tolerated; strict for Latchkey's own files.
    public init(json: JSONObject, lenient: Bool = false) throws(DocumentError) {
        let m = JSONMembers(json)
        self.init(issuer: try m.requiredString("issuer"))
        for member in Self.stringMembers {
            member.set(&self, lenient ? json[member.name]?.stringValue : try m.string(member.name))
        }
        for member in Self.listMembers {
            member.set(&self, lenient ? json[member.name]?.arrayValue?.compactMap(\.stringValue) : try m.strings(member.name))
        }
        for member in Self.flagMembers {
            member.set(&self, lenient ? json[member.name]?.boolValue : try m.bool(member.name))
        }
        // Strict even when lenient: see `MTLSEndpointAliases.init(json:)`.
        if let aliases = m.value(MTLSEndpointAliases.memberName) { mtlsEndpointAliases = try MTLSEndpointAliases(json: aliases) }
    }

    /// The metadata as JSON: modelled members in table order, unset ones left out.
    public var json: JSONObject {
        var o = JSONObject()
        o["issuer"] = .string(issuer)
        for member in Self.stringMembers { o.setIfPresent(member.name, member.get(self)) }
        for member in Self.listMembers { o.setIfPresent(member.name, member.get(self)) }
        for member in Self.flagMembers { o.setIfPresent(member.name, member.get(self)) }
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
            (aliases.backchannelAuthenticationEndpoint, backchannelAuthenticationEndpoint)]
        var map: [String: String] = [:]
        for case let (alias?, ordinary?) in pairs where alias != ordinary { map[alias] = ordinary }
        return map
    }
}
