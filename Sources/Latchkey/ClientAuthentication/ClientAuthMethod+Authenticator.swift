extension ClientAuthMethod {
    /// The authenticator for this method; the `client_secret_*` methods need `secret`. The mutual-TLS
    /// methods authenticate in the handshake, so theirs only names the client (see `MutualTLS`). For
    /// `private_key_jwt`, which also needs the issuer and the assertion settings, use
    /// `ClientConfiguration.clientAuthenticator(secret:key:)`; here it throws `.missingClientKey`.
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
        case .privateKeyJWT:
            throw .configuration(.missingClientKey)
        }
    }
}

extension ClientConfiguration {
    /// The authenticator for `authMethod`: `secret` for the `client_secret_*` methods, `key` (read at
    /// each use) for `private_key_jwt`, whose assertions follow `clientAssertion`.
    public func clientAuthenticator(secret: String?, key: (any ClientKeySource)?) throws(LatchkeyError) -> any RequestAuthenticator {
        guard authMethod == .privateKeyJWT else { return try authMethod.authenticator(clientID: clientID, secret: secret) }
        guard let key else { throw .configuration(.missingClientKey) }
        return PrivateKeyJWTAuthentication(clientID: clientID, issuer: issuer, key: key, settings: clientAssertion)
    }
}
