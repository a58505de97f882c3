import LatchkeyHTTP

/// Adds the client's identity to a token, device or revocation request (RFC 6749 §2.3).
struct ClientAuthentication: Sendable {
    let clientID: String
    let method: ClientAuthMethod
    let secret: String?

    /// Returns the body parameters and extra headers for `params`.
    /// Public clients put `client_id` in the body: Glewlwyd refuses HTTP Basic with an empty secret.
    func apply(to params: [(String, String)]) throws(LatchkeyError) -> (params: [(String, String)], headers: [(name: String, value: String)]) {
        var body = params
        switch method {
        case .none:
            body.append(("client_id", clientID))
            return (body, [])
        case .clientSecretPost:
            guard let secret else { throw .configuration("client_secret_post needs a client secret (--client-secret-file or LATCHKEY_CLIENT_SECRET)") }
            body.append(("client_id", clientID))
            body.append(("client_secret", secret))
            return (body, [])
        case .clientSecretBasic:
            guard let secret else { throw .configuration("client_secret_basic needs a client secret (--client-secret-file or LATCHKEY_CLIENT_SECRET)") }
            // RFC 6749 §2.3.1: both parts are form-encoded before Base64.
            let pair = FormURLEncoding.encodeComponent(clientID) + ":" + FormURLEncoding.encodeComponent(secret)
            let encoded = Base64.encode(Array(pair.utf8))
            return (body, [("Authorization", "Basic " + encoded)])
        }
    }
}
