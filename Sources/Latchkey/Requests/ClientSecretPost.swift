/// `client_secret_post` (RFC 6749 §2.3.1): `client_id` and `client_secret` in the form body.
public struct ClientSecretPost: RequestAuthenticator {
    /// The client.
    public let clientID: String
    let secret: String

    /// Makes the authenticator.
    public init(clientID: String, secret: String) {
        self.clientID = clientID
        self.secret = secret
    }

    /// Appends both parameters.
    public func authenticate(_ request: inout ProviderRequest, context: RequestContext) throws(LatchkeyError) {
        guard request.role.authenticatesClient else { return }
        request.form.append(("client_id", clientID))
        request.form.append(("client_secret", secret))
    }
}
