import LatchkeyJOSE

/// What a client assertion's `aud` names (RFC 7523 §3, as profiled by its successor draft).
public enum ClientAssertionAudience: String, Sendable, Equatable, CaseIterable {
    /// The issuer identifier: what the successor draft of RFC 7523 and FAPI 2.0 require, and the
    /// only value that cannot be replayed at another endpoint of another server.
    case issuer
    /// The exact URL of the endpoint being called, for providers that accept nothing else
    /// (Glewlwyd 2.7.5 refuses the issuer).
    case endpoint
}

/// The `typ` header of a client assertion.
public enum ClientAssertionType: String, Sendable, Equatable, CaseIterable {
    /// `client-authentication+jwt`: explicit typing, so the assertion cannot be taken for another
    /// kind of JWT (the successor draft of RFC 7523).
    case clientAuthentication = "client-authentication+jwt"
    /// `JWT`-style plain typing (`typ: jwt`), for servers that refuse the explicit type.
    case jwt
}

/// How `private_key_jwt` assertions are made. Holds no key: the key is read from its
/// `ClientKeySource` at each use.
public struct ClientAssertionSettings: Sendable, Equatable {
    /// The signing algorithm; nil takes the key's natural one (RS256 for RSA, ES256 for P-256,
    /// ES384 for P-384).
    public var algorithm: JWSAlgorithm?
    /// The `kid` header, when the provider needs to pick one of the client's registered keys.
    public var keyID: String?
    /// The `typ` header.
    public var type: ClientAssertionType
    /// What `aud` names.
    public var audience: ClientAssertionAudience

    /// Makes settings; the defaults are the successor draft's: explicit typing, issuer audience.
    public init(
        algorithm: JWSAlgorithm? = nil, keyID: String? = nil, type: ClientAssertionType = .clientAuthentication,
        audience: ClientAssertionAudience = .issuer
    ) {
        self.algorithm = algorithm
        self.keyID = keyID
        self.type = type
        self.audience = audience
    }

    /// True when every member has its default.
    public var isDefault: Bool { self == ClientAssertionSettings() }
}
