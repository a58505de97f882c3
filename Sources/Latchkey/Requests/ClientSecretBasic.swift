import LatchkeyHTTP

/// `client_secret_basic` (RFC 6749 §2.3.1): `Authorization: Basic` over the form-encoded client_id
/// and secret (both parts are form-encoded before Base64, as the RFC says and many servers forget).
public struct ClientSecretBasic: RequestAuthenticator {
    /// The client.
    public let clientID: String
    let secret: String

    /// Makes the authenticator.
    public init(clientID: String, secret: String) {
        self.clientID = clientID
        self.secret = secret
    }

    /// Sets the `Authorization` header.
    public func authenticate(_ request: inout ProviderRequest, context: RequestContext) throws(LatchkeyError) {
        guard request.role.authenticatesClient else { return }
        let pair = FormURLEncoding.encodeComponent(clientID) + ":" + FormURLEncoding.encodeComponent(secret)
        request.setHeader("Authorization", "Basic " + Base64.encode(Array(pair.utf8)))
    }
}
