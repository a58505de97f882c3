import LatchkeyHTTP

/// Which transport carries each endpoint's requests. One transport serves every role unless a role
/// is given its own — e.g. a client presenting a certificate (RFC 8705) to the token endpoint only,
/// while discovery, JWKS and resources stay on a plain one.
public struct EndpointTransports: Sendable {
    /// The transport for every role without its own.
    public var fallback: any HTTPTransport
    private var specific: [EndpointRole: any HTTPTransport] = [:]

    /// Every role over `transport`.
    public init(_ transport: any HTTPTransport) { fallback = transport }

    /// The transport for `role`.
    public func transport(for role: EndpointRole) -> any HTTPTransport { specific[role] ?? fallback }

    /// The same set with `transport` for each of `roles`.
    public func using(_ transport: any HTTPTransport, for roles: [EndpointRole]) -> EndpointTransports {
        var copy = self
        for role in roles { copy.specific[role] = transport }
        return copy
    }
}
