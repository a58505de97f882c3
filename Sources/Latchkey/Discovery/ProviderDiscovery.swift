import LatchkeyHTTP
import LatchkeyJOSE

/// Finds an issuer's metadata: OpenID Connect Discovery 1.0 first, then RFC 8414.
/// The document's `issuer` must equal the configured issuer exactly (OIDC Discovery §4.3,
/// RFC 8414 §3.3); every endpoint must be https (http only for loopback); overrides are applied last.
package enum ProviderDiscovery {
    /// Discovers and validates `issuer`'s metadata, then applies `overrides`.
    package static func discover(
        issuer: String, transport: any HTTPTransport,
        overrides: EndpointOverrides = EndpointOverrides(),
        quirks: ProviderQuirks = ProviderQuirks(),
        time: any TimeSource = SystemTimeSource()
    ) async throws(LatchkeyError) -> ProviderMetadata {
        try await discoverDocument(issuer: issuer, transport: transport, overrides: overrides, quirks: quirks, time: time).metadata
    }

    /// `discover`, also keeping the provider's whole document (the validated object it came from),
    /// so a caller can show every member the provider sent, not only those latchkey uses.
    package static func discoverDocument(
        issuer: String, transport: any HTTPTransport,
        overrides: EndpointOverrides = EndpointOverrides(),
        quirks: ProviderQuirks = ProviderQuirks(),
        time: any TimeSource = SystemTimeSource()
    ) async throws(LatchkeyError) -> DiscoveredProvider {
        // A pasted discovery URL would only meet a 404 on a mangled URL: the rule says what it is instead.
        if let problem = ClientConfiguration.issuerProblem(issuer) { throw .configuration(problem) }
        let exchange = EndpointExchange(transport: transport)
        var lastError: LatchkeyError = .protocolViolation("no metadata found for \(issuer)")
        for url in candidateURLs(issuer: issuer) {
            // A GET: a transient failure is asked again (TransientFailure); one that lasts ends the
            // discovery, since the next candidate is on the same failing server.
            let response = try await TransientFailure.retrying(.discovery, time: time) { () throws(LatchkeyError) in
                try await exchange.getJSON(url, maxRedirects: 3)
            }
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
            return DiscoveredProvider(
                metadata: try validated(overrides.applied(to: ProviderMetadata(issuer: issuer))),
                document: JSONObject())
        }
        throw lastError
    }

    /// The discovery URLs, in order: `issuer + /.well-known/openid-configuration`, then RFC 8414
    /// §3.1's insertion of `/.well-known/oauth-authorization-server` before the issuer's path.
    package static func candidateURLs(issuer: String) -> [HTTPURL] {
        var trimmed = issuer
        while trimmed.hasSuffix("/") { trimmed.removeLast() }
        var urls: [HTTPURL] = []
        if let u = HTTPURL(string: trimmed + "/.well-known/openid-configuration") { urls.append(u) }
        if let issuerURL = HTTPURL(string: issuer) {
            var path = issuerURL.path
            while path.hasSuffix("/") { path.removeLast() }
            if let u = HTTPURL(string: issuerURL.schemeAndAuthority + "/.well-known/oauth-authorization-server" + path) {
                urls.append(u)
            }
        }
        return urls
    }

    /// The issuer a discovery document's URL stands for, or nil when `url` is not one: the OpenID
    /// form appends the well-known segment to the issuer, RFC 8414 §3.1 inserts it before the path.
    package static func issuerBehindDiscoveryURL(_ url: HTTPURL) -> String? {
        var path = url.path
        while path.hasSuffix("/") { path.removeLast() }
        for segment in ["/.well-known/openid-configuration", "/.well-known/oauth-authorization-server"] {
            if path.hasSuffix(segment) {
                return url.schemeAndAuthority + path.dropLast(segment.count)
            }
            if path.hasPrefix(segment + "/") {
                return url.schemeAndAuthority + path.dropFirst(segment.count)
            }
        }
        return nil
    }

    /// Reads metadata members; the issuer must match exactly (or as a named quirk allows).
    package static func parse(
        _ object: JSONObject, expectedIssuer: String,
        quirks: ProviderQuirks = ProviderQuirks()
    ) throws(LatchkeyError) -> ProviderMetadata {
        guard let issuer = object.string("issuer") else {
            throw .protocolViolation("metadata has no issuer")
        }
        guard quirks.acceptsIssuer(issuer, configured: expectedIssuer) else {
            throw .issuerMismatch(expected: expectedIssuer, got: issuer)
        }
        do { return try ProviderMetadata(json: object, lenient: true) } catch {
            throw .protocolViolation("metadata: \(error)")
        }
    }

    /// Refuses endpoints that are not https (http only for loopback).
    static func validated(_ m: ProviderMetadata) throws(LatchkeyError) -> ProviderMetadata {
        let endpoints: [(String, String?)] = [
            ("authorization_endpoint", m.authorizationEndpoint), ("token_endpoint", m.tokenEndpoint),
            ("device_authorization_endpoint", m.deviceAuthorizationEndpoint),
            ("revocation_endpoint", m.revocationEndpoint), ("jwks_uri", m.jwksURI)
        ]
        let aliases = (m.mtlsEndpointAliases?.present ?? []).map { ("mtls_endpoint_aliases." + $0.0, Optional($0.1)) }
        for (name, value) in endpoints + aliases {
            guard let value else { continue }
            guard HTTPURL(string: value) != nil else {
                throw .protocolViolation("\(name) \(value) is not an https URL (http is allowed for loopback only)")
            }
        }
        return m
    }
}
