import LatchkeyJOSE

/// A protected resource's metadata (RFC 9728 §2): which authorization servers issue tokens for it,
/// which scopes it knows, how tokens are presented. Read strictly: `resource` is required and
/// must be an https URL (http for loopback) without query or fragment; every member has its
/// registered type; lists are bounded (`maxListCount`), so a hostile document cannot make the
/// client hold or print more than that. Unknown members are ignored (§2: "MUST be ignored").
public struct ProtectedResourceMetadata: Sendable, Equatable {
    /// At most this many entries are accepted in any list member.
    public static let maxListCount = 64
    /// At most this many bytes are accepted for one string.
    public static let maxStringBytes = 2048

    /// `resource`: the identifier the document is about (§2, required).
    public var resource: String
    /// `authorization_servers`: issuer identifiers of the servers that issue tokens for it.
    public var authorizationServers: [String]
    /// `jwks_uri`: the resource's own signing keys (informational here).
    public var jwksURI: String?
    /// `scopes_supported`: scopes the resource knows (requested at sign-in unless `--scope`).
    public var scopesSupported: [String]?
    /// `bearer_methods_supported`: `header`, `body`, `query`.
    public var bearerMethodsSupported: [String]?
    /// `resource_signing_alg_values_supported`.
    public var resourceSigningAlgValuesSupported: [String]?
    /// `resource_name`: a human-readable name (untrusted text: make it terminal-safe to print).
    public var resourceName: String?
    /// `resource_documentation`.
    public var resourceDocumentation: String?
    /// `resource_policy_uri`.
    public var resourcePolicyURI: String?
    /// `resource_tos_uri`.
    public var resourceTOSURI: String?
    /// `tls_client_certificate_bound_access_tokens` (RFC 8705).
    public var tlsClientCertificateBoundAccessTokens: Bool?
    /// `authorization_details_types_supported` (RFC 9396).
    public var authorizationDetailsTypesSupported: [String]?
    /// `dpop_signing_alg_values_supported` (RFC 9449).
    public var dpopSigningAlgValuesSupported: [String]?
    /// `dpop_bound_access_tokens_required` (RFC 9449).
    public var dpopBoundAccessTokensRequired: Bool?

    /// Metadata naming `resource` and nothing else.
    public init(resource: String, authorizationServers: [String] = []) {
        self.resource = resource
        self.authorizationServers = authorizationServers
    }

    /// Reads a metadata document; a `DocumentError` names the member that was refused.
    public init(json object: JSONObject) throws(DocumentError) {
        let m = JSONMembers(object)
        func bounded(_ key: String, _ value: String?) throws(DocumentError) -> String? {
            guard let value else { return nil }
            guard value.utf8.count <= Self.maxStringBytes else {
                throw .invalid(member: key, reason: "longer than \(Self.maxStringBytes) bytes")
            }
            return value
        }
        func list(_ key: String) throws(DocumentError) -> [String]? {
            guard let items = try m.strings(key) else { return nil }
            guard items.count <= Self.maxListCount else {
                throw .invalid(member: key, reason: "more than \(Self.maxListCount) entries")
            }
            for item in items { _ = try bounded(key, item) }
            return items
        }
        let resource = try bounded("resource", try m.requiredString("resource"))!
        guard ResourceIdentifier(named: resource) != nil else {
            throw .invalid(member: "resource", reason: "not an https URL without query or fragment")
        }
        self.init(resource: resource, authorizationServers: try list("authorization_servers") ?? [])
        for server in authorizationServers where server.isEmpty {
            throw .invalid(member: "authorization_servers", reason: "an empty issuer")
        }
        jwksURI = try bounded("jwks_uri", try m.string("jwks_uri"))
        scopesSupported = try list("scopes_supported")
        bearerMethodsSupported = try list("bearer_methods_supported")
        resourceSigningAlgValuesSupported = try list("resource_signing_alg_values_supported")
        resourceName = try bounded("resource_name", try m.string("resource_name"))
        resourceDocumentation = try bounded("resource_documentation", try m.string("resource_documentation"))
        resourcePolicyURI = try bounded("resource_policy_uri", try m.string("resource_policy_uri"))
        resourceTOSURI = try bounded("resource_tos_uri", try m.string("resource_tos_uri"))
        tlsClientCertificateBoundAccessTokens = try m.bool("tls_client_certificate_bound_access_tokens")
        authorizationDetailsTypesSupported = try list("authorization_details_types_supported")
        dpopSigningAlgValuesSupported = try list("dpop_signing_alg_values_supported")
        dpopBoundAccessTokensRequired = try m.bool("dpop_bound_access_tokens_required")
    }

    /// The identifier `resource` names (always valid once read from JSON).
    package var identifier: ResourceIdentifier? { ResourceIdentifier(named: resource) }

    /// The authorization server to sign in at: the one named, or the one of several that
    /// `preferred` names (compared as issuers: `IssuerName.sameIssuer`). Several and no preference
    /// is never decided here: the caller asks its user.
    package func authorizationServer(preferring preferred: String? = nil) -> AuthorizationServerChoice {
        if let preferred {
            if let named = authorizationServers.first(where: { IssuerName.sameIssuer($0, preferred) }) {
                return .chosen(named)
            }
            return authorizationServers.isEmpty ? .none : .notNamed(preferred, named: authorizationServers)
        }
        switch authorizationServers.count {
        case 0: return .none
        case 1: return .chosen(authorizationServers[0])
        default: return .several(authorizationServers)
        }
    }
}

/// Which authorization server a resource's metadata leads to.
package enum AuthorizationServerChoice: Sendable, Equatable {
    /// This one (as the metadata writes it; discovery then checks the issuer exactly).
    case chosen(String)
    /// The metadata names several and nothing chose: the user must.
    case several([String])
    /// The metadata names none.
    case none
    /// The preferred issuer is not among those named.
    case notNamed(String, named: [String])
}

/// Comparing issuer identifiers a resource names with those a profile or a provider holds.
package enum IssuerName {
    /// True when `a` and `b` name the same issuer, ignoring one trailing `/` (the mcp SDK's
    /// pydantic URLs add one to `authorization_servers`). Only for choosing: the issuer's own
    /// metadata is still compared exactly at discovery.
    package static func sameIssuer(_ a: String, _ b: String) -> Bool {
        a == b || trimmed(a) == trimmed(b)
    }

    /// `issuer` without one trailing `/`.
    static func trimmed(_ issuer: String) -> Substring {
        issuer.hasSuffix("/") ? issuer.dropLast() : Substring(issuer)
    }

    /// The other spelling of `issuer`: with its trailing `/` removed, or with one added.
    package static func otherSpelling(_ issuer: String) -> String {
        issuer.hasSuffix("/") ? String(issuer.dropLast()) : issuer + "/"
    }
}
