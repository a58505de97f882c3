import LatchkeyHTTP

/// `private_key_jwt` with a ready-made assertion (RFC 7523 §2.2): the client's JWT is made by
/// someone else (a SPIFFE agent's JWT-SVID, a Kubernetes projected service-account token, a cloud
/// instance identity token) and kept in a file, read at each request where the client
/// authenticates, as `client_assertion` with its type, `client_id` beside it (RFC 7521 §4.2).
///
/// An assertion that has expired (its `exp`, when readable) is refused before anything is sent.
/// The file's issuer decides `aud`, `jti` and the lifetime: none of them is checked here.
public struct ClientAssertionFileAuthentication: RequestAuthenticator {
    /// The client.
    public let clientID: String
    /// Where the assertion is read from.
    public let file: CredentialFile

    /// Makes the authenticator for `clientID`, its assertions read from `file`.
    public init(clientID: String, file: CredentialFile) {
        self.clientID = clientID
        self.file = file
    }

    /// Appends `client_id` (unless the form names the client already), `client_assertion_type` and
    /// the file's current assertion.
    public func authenticate(_ request: inout ProviderRequest, context: RequestContext) throws(LatchkeyError) {
        guard request.role.authenticatesClient else { return }
        let assertion = try file.jwt(at: context.now)
        request.appendClientID(clientID)
        request.form.append(("client_assertion_type", PrivateKeyJWTAuthentication.assertionType))
        request.form.append(("client_assertion", assertion))
    }

    /// Reads the file now: one that is unsafe, not one JWT, or expired stops a sign-in before it sends.
    public func checkUsable(at now: Timestamp) throws(LatchkeyError) { _ = try file.jwt(at: now) }

    /// A refused assertion, read as a signed one's is: `invalid_client`, any 401, or a 403 without
    /// an error code.
    public func refusal(of response: HTTPResponse, endpoint: EndpointRole) -> ClientAuthenticationRefusal? {
        let error: OAuthError?
        if case .error(let e) = TokenResponse.parse(response) { error = e } else { error = nil }
        let refused = error?.code == "invalid_client" || response.status == 401 || (response.status == 403 && error?.code == nil)
        guard refused else { return nil }
        return ClientAuthenticationRefusal(
            method: .privateKeyJWT, endpoint: endpoint, status: response.status, error: error?.code == nil ? nil : error)
    }
}
