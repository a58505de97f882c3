/// What a sign-in is given besides its `ClientConfiguration`: the secrets and sources that live
/// outside the configuration (which is written to disk and never holds one), and the inputs of a
/// flow. `ClientConfiguration.problems(for:given:metadata:)` judges the two together.
package struct SignInMaterials: Sendable {
    /// A client secret is at hand (for the `client_secret_*` methods).
    package var clientSecret: Bool
    /// A source for the client's private key is at hand (`private_key_jwt`).
    package var clientKey: Bool
    /// A client certificate and its key are at hand (the mutual-TLS methods, RFC 8705).
    package var clientCertificate: Bool
    /// The program authenticates the client itself (`Session`'s `clientAuthentication`): the
    /// method's own secret or key is then not needed.
    package var customClientAuthentication: Bool
    /// A CIBA request naming the person to ask (`BackchannelAuthenticationRequest`).
    package var loginHint: Bool
    /// A way to read the pasted redirect URL or code (the paste flow).
    package var pasteReader: Bool
    /// What a public client asking for `offline_access` without DPoP gets.
    package var offlineAccess: OfflineAccessPolicy
    /// An assertion file is at hand (the JWT bearer grant).
    package var assertion: Bool

    /// Makes materials; every default is "not given".
    package init(
        clientSecret: Bool = false, clientKey: Bool = false, clientCertificate: Bool = false,
        customClientAuthentication: Bool = false, loginHint: Bool = false, pasteReader: Bool = false,
        offlineAccess: OfflineAccessPolicy = .warn, assertion: Bool = false
    ) {
        self.assertion = assertion
        self.clientSecret = clientSecret
        self.clientKey = clientKey
        self.clientCertificate = clientCertificate
        self.customClientAuthentication = customClientAuthentication
        self.loginHint = loginHint
        self.pasteReader = pasteReader
        self.offlineAccess = offlineAccess
    }
}
