import FoundationEssentials
import LatchkeyHTTP
import LatchkeyJOSE

/// Finds an issuer's metadata: OpenID Connect Discovery 1.0 first, then RFC 8414.
/// The document's `issuer` must equal the configured issuer exactly (OIDC Discovery §4.3,
/// RFC 8414 §3.3); every endpoint must be https (http only for loopback); overrides are applied last.
public enum ProviderDiscovery {
    /// Discovers and validates `issuer`'s metadata, then applies `overrides`.
    public static func discover(issuer: String, transport: any HTTPTransport,
                                overrides: EndpointOverrides = EndpointOverrides(),
                                quirks: ProviderQuirks = ProviderQuirks()) async throws(LatchkeyError) -> ProviderMetadata {
        try await discoverDocument(issuer: issuer, transport: transport, overrides: overrides, quirks: quirks).metadata
    }

    /// `discover`, also keeping the provider's whole document (the validated object it came from),
    /// so a caller can show every member the provider sent, not only those latchkey uses.
    public static func discoverDocument(issuer: String, transport: any HTTPTransport,
                                        overrides: EndpointOverrides = EndpointOverrides(),
                                        quirks: ProviderQuirks = ProviderQuirks()) async throws(LatchkeyError) -> DiscoveredProvider {
        guard let issuerURL = URL(string: issuer), SecureURL.isAllowed(issuerURL),
              issuerURL.query == nil, issuerURL.fragment == nil else {
            throw .configuration("issuer \(issuer) must be an https URL without query or fragment (http only for loopback)")
        }
        let exchange = EndpointExchange(transport: transport)
        var lastError: LatchkeyError = .protocolViolation("no metadata found for \(issuer)")
        for url in candidateURLs(issuer: issuer) {
            let response = try await exchange.getJSON(url, maxRedirects: 3)
            guard response.status == 200 else {
                lastError = .protocolViolation("\(url.absoluteString) answered HTTP \(response.status)")
                continue
            }
            guard let object = try? JSONParser().parseObject(response.body) else {
                lastError = .protocolViolation("\(url.absoluteString) is not a JSON object")
                continue
            }
            // A document that parses but names another issuer is an attack or a misconfiguration: stop.
            let metadata = try parse(object, expectedIssuer: issuer, quirks: quirks)
            return DiscoveredProvider(metadata: try validated(overrides.applied(to: metadata)), document: object)
        }
        // Overrides alone can carry a provider without any metadata (token endpoint given explicitly).
        if overrides.token != nil {
            return DiscoveredProvider(metadata: try validated(overrides.applied(to: ProviderMetadata(issuer: issuer))),
                                      document: JSONObject())
        }
        throw lastError
    }

    /// The discovery URLs, in order: `issuer + /.well-known/openid-configuration`, then RFC 8414
    /// §3.1's insertion of `/.well-known/oauth-authorization-server` before the issuer's path.
    public static func candidateURLs(issuer: String) -> [URL] {
        var trimmed = issuer
        while trimmed.hasSuffix("/") { trimmed.removeLast() }
        var urls: [URL] = []
        if let u = URL(string: trimmed + "/.well-known/openid-configuration") { urls.append(u) }
        if var c = URLComponents(string: issuer) {
            var path = c.percentEncodedPath
            while path.hasSuffix("/") { path.removeLast() }
            c.percentEncodedPath = "/.well-known/oauth-authorization-server" + path
            if let u = c.url { urls.append(u) }
        }
        return urls
    }

    /// Reads metadata members; the issuer must match exactly (or as a named quirk allows).
    public static func parse(_ object: JSONObject, expectedIssuer: String,
                             quirks: ProviderQuirks = ProviderQuirks()) throws(LatchkeyError) -> ProviderMetadata {
        guard let issuer = object.string("issuer") else {
            throw .protocolViolation("metadata has no issuer")
        }
        guard quirks.acceptsIssuer(issuer, configured: expectedIssuer) else {
            throw .issuerMismatch(expected: expectedIssuer, got: issuer)
        }
        var m = ProviderMetadata(issuer: issuer)
        m.authorizationEndpoint = object.string("authorization_endpoint")
        m.tokenEndpoint = object.string("token_endpoint")
        m.deviceAuthorizationEndpoint = object.string("device_authorization_endpoint")
        m.revocationEndpoint = object.string("revocation_endpoint")
        m.jwksURI = object.string("jwks_uri")
        m.userinfoEndpoint = object.string("userinfo_endpoint")
        m.idTokenSigningAlgValuesSupported = strings(object["id_token_signing_alg_values_supported"])
        m.codeChallengeMethodsSupported = strings(object["code_challenge_methods_supported"])
        m.scopesSupported = strings(object["scopes_supported"])
        m.grantTypesSupported = strings(object["grant_types_supported"])
        m.tokenEndpointAuthMethodsSupported = strings(object["token_endpoint_auth_methods_supported"])
        m.authorizationResponseIssParameterSupported = object["authorization_response_iss_parameter_supported"]?.boolValue
        return m
    }

    /// Refuses endpoints that are not https (http only for loopback).
    static func validated(_ m: ProviderMetadata) throws(LatchkeyError) -> ProviderMetadata {
        let endpoints: [(String, String?)] = [
            ("authorization_endpoint", m.authorizationEndpoint), ("token_endpoint", m.tokenEndpoint),
            ("device_authorization_endpoint", m.deviceAuthorizationEndpoint),
            ("revocation_endpoint", m.revocationEndpoint), ("jwks_uri", m.jwksURI),
        ]
        for (name, value) in endpoints {
            guard let value else { continue }
            guard let url = URL(string: value), SecureURL.isAllowed(url) else {
                throw .protocolViolation("\(name) \(value) is not an https URL (http is allowed for loopback only)")
            }
        }
        return m
    }

    private static func strings(_ v: JSONValue?) -> [String]? {
        guard let array = v?.arrayValue else { return nil }
        return array.compactMap(\.stringValue)
    }
}
