import LatchkeyHTTP

/// `client_secret_basic` and `client_secret_post` (RFC 6749 §2.3.1): the shared secret, in the
/// `Authorization: Basic` header or in the form body.
public struct ClientSecretAuthentication: RequestAuthenticator {
    /// Where the secret goes.
    public enum Placement: Sendable {
        /// `Authorization: Basic` over the form-encoded client_id and secret (both parts are
        /// form-encoded before Base64, as the RFC says and many servers forget).
        case basic
        /// `client_id` and `client_secret` in the form body.
        case post
    }

    /// The client.
    public let clientID: String
    /// Where the secret goes.
    public let placement: Placement
    let secret: String

    /// Makes the authenticator.
    public init(clientID: String, secret: String, placement: Placement) {
        self.clientID = clientID
        self.secret = secret
        self.placement = placement
    }

    /// Adds the secret where `placement` says.
    public func authenticate(_ request: inout ProviderRequest, context: RequestContext) throws(LatchkeyError) {
        guard request.role.authenticatesClient else { return }
        switch placement {
        case .basic:
            let pair = FormURLEncoding.encodeComponent(clientID) + ":" + FormURLEncoding.encodeComponent(secret)
            request.setHeader("Authorization", "Basic " + Base64.encode(Array(pair.utf8)))
        case .post:
            request.appendClientID(clientID)
            request.form.append(("client_secret", secret))
        }
    }
}
