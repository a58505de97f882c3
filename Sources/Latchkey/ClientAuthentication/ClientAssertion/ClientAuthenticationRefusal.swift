/// A provider refused the client's own authentication (RFC 6749 §5.2 `invalid_client`, or a bare
/// 401/403 such as Glewlwyd's empty 403) at an endpoint where the client authenticates.
public struct ClientAuthenticationRefusal: Sendable, Equatable, CustomStringConvertible {
    /// The method the client used.
    public var method: ClientAuthMethod
    /// Where.
    public var endpoint: EndpointRole
    /// The HTTP status.
    public var status: Int
    /// The OAuth error, when the server sent one.
    public var error: OAuthError?
    /// For `private_key_jwt`: what the assertion's `aud` named. A provider that refuses the issuer
    /// identifier may accept the endpoint URL (and the other way round).
    public var assertionAudience: ClientAssertionAudience?

    /// Makes a refusal.
    public init(
        method: ClientAuthMethod, endpoint: EndpointRole, status: Int, error: OAuthError? = nil,
        assertionAudience: ClientAssertionAudience? = nil
    ) {
        self.method = method
        self.endpoint = endpoint
        self.status = status
        self.error = error
        self.assertionAudience = assertionAudience
    }

    /// One line.
    public var description: String {
        var text =
            "the \(endpoint.rawValue) endpoint refused the client's \(method.rawValue) authentication ("
            + (error?.description ?? "HTTP \(status) without an error code") + ")"
        switch assertionAudience {
        case .issuer?: text += "; the assertion's aud was the issuer identifier"
        case .endpoint?: text += "; the assertion's aud was the endpoint URL"
        case nil: break
        }
        return text
    }
}
