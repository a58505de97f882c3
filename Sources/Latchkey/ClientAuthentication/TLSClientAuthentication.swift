/// `tls_client_auth` and `self_signed_tls_client_auth` (RFC 8705 §2): the proof is the certificate
/// presented in the TLS handshake (`MutualTLS` puts it on the provider's connections), so the
/// request itself carries only `client_id` (§2: required, it tells the server which client's
/// certificate rules apply; Glewlwyd looks the client up by it). Never a secret.
public struct TLSClientAuthentication: RequestAuthenticator {
    /// The client.
    public let clientID: String

    /// Makes the authenticator.
    public init(clientID: String) { self.clientID = clientID }

    /// Appends `client_id` on the endpoints where the client authenticates, once (a pushed
    /// authorization request names the client already).
    public func authenticate(_ request: inout ProviderRequest, context: RequestContext) throws(LatchkeyError) {
        guard request.role.authenticatesClient else { return }
        request.appendClientID(clientID)
    }
}
