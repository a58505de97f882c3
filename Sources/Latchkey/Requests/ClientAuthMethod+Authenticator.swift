extension ClientAuthMethod {
    /// The authenticator for this method; the `client_secret_*` methods need `secret`. The mutual-TLS
    /// methods authenticate in the handshake, so theirs only names the client (see `MutualTLS`).
    public func authenticator(clientID: String, secret: String?) throws(LatchkeyError) -> any RequestAuthenticator {
        switch self {
        case .none:
            return PublicClientAuthentication(clientID: clientID)
        case .clientSecretBasic:
            guard let secret else { throw .configuration(.missingClientSecret(method: self)) }
            return ClientSecretAuthentication(clientID: clientID, secret: secret, placement: .basic)
        case .clientSecretPost:
            guard let secret else { throw .configuration(.missingClientSecret(method: self)) }
            return ClientSecretAuthentication(clientID: clientID, secret: secret, placement: .post)
        case .tlsClientAuth, .selfSignedTLSClientAuth:
            return TLSClientAuthentication(clientID: clientID)
        }
    }
}
