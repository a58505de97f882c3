import Latchkey

/// How one provider spells RFC 7591 / RFC 7592: member names, the statuses it answers with, and
/// what it needs that the RFC does not say. Kept as data so the registration client has no
/// per-provider branches; `glewlwyd` is what Glewlwyd 2.7.5 was measured to speak
/// (docs/providers.md, "Glewlwyd and dynamic client registration").
public struct RegistrationDialect: Sendable, Equatable {
    /// The name the CLI takes and the profile remembers (`rfc7591`, `glewlwyd`).
    public let name: String
    /// The `grant_types` value for the device flow.
    public let deviceGrant: String
    /// The member naming the client assertion's signing algorithm.
    public let signingAlgorithmMember: String
    /// Statuses that mean "created".
    public let createStatuses: [Int]
    /// Statuses that mean "deleted".
    public let deleteStatuses: [Int]
    /// A public client must also say `client_confidential: false` (else the provider stores a
    /// confidential client that the device endpoint refuses).
    public let marksPublicClients: Bool
    /// `redirect_uris` sent for a client with no redirect (the provider refuses an empty list);
    /// nil: left out, as RFC 7591 §2 allows for clients without redirect-based grants.
    public let placeholderRedirectURI: String?
    /// Grants the provider needs beyond the RFC's for what a client does anyway (Glewlwyd's
    /// `delete_token`: without it the client cannot revoke its own tokens, RFC 7009).
    public let extraGrantTypes: [String]
    /// The `aud` of the client assertions a registered client signs (RFC 7523 §3): the issuer, as
    /// RFC 7523 and OpenID Connect Core §9 allow, or the token endpoint, which Glewlwyd 2.7 requires.
    public let assertionAudience: ClientAssertionAudience

    /// RFC 7591 and RFC 7592 as written: 201 on create, 204 on delete, the RFC 8628 grant URN.
    public static let rfc7591 = RegistrationDialect(
        name: "rfc7591", deviceGrant: "urn:ietf:params:oauth:grant-type:device_code",
        signingAlgorithmMember: "token_endpoint_auth_signing_alg", createStatuses: [201], deleteStatuses: [204],
        marksPublicClients: false, placeholderRedirectURI: nil, extraGrantTypes: [], assertionAudience: .issuer)

    /// Glewlwyd 2.7: `device_authorization`, `token_endpoint_signing_alg`, 200 for create and
    /// delete, `client_confidential`, and a mandatory `redirect_uris` (loopback accepted).
    public static let glewlwyd = RegistrationDialect(
        name: "glewlwyd", deviceGrant: "device_authorization",
        signingAlgorithmMember: "token_endpoint_signing_alg", createStatuses: [200, 201], deleteStatuses: [200, 204],
        marksPublicClients: true, placeholderRedirectURI: "http://127.0.0.1/unused", extraGrantTypes: ["delete_token"],
        assertionAudience: .endpoint)

    /// Every dialect, by name.
    public static let all: [RegistrationDialect] = [.rfc7591, .glewlwyd]

    /// The dialect called `name`, or nil.
    public static func named(_ name: String) -> RegistrationDialect? { all.first { $0.name == name } }

    /// The RFC name of the device grant; the codec maps it to and from `deviceGrant`.
    public static let deviceGrantURN = "urn:ietf:params:oauth:grant-type:device_code"
}
