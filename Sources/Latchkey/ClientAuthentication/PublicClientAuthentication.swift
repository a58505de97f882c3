/// `none` (RFC 6749 §2.3, public clients): only `client_id` in the body, on the endpoints where the
/// client identifies itself. Glewlwyd refuses HTTP Basic with an empty secret, so a public client
/// never sends one.
public struct PublicClientAuthentication: RequestAuthenticator {
    /// The client.
    public let clientID: String

    /// Makes the authenticator.
    public init(clientID: String) { self.clientID = clientID }

    /// Appends `client_id`.
    public func authenticate(_ request: inout ProviderRequest, context: RequestContext) throws(LatchkeyError) {
        guard request.role.authenticatesClient else { return }
        request.appendClientID(clientID)
    }
}
