/// What a sign-in is given besides its `ClientConfiguration`: the secrets and sources that live
/// outside the configuration (which is written to disk and never holds one), and the inputs of a
/// flow. `ClientConfiguration.problems(for:given:metadata:)` judges the two together.
package struct SignInMaterials: Sendable {
    /// A client secret is at hand (for the `client_secret_*` methods).
    public var clientSecret: Bool
    /// A source for the client's private key is at hand (`private_key_jwt`).
    public var clientKey: Bool
    /// A client certificate and its key are at hand (the mutual-TLS methods, RFC 8705).
    public var clientCertificate: Bool
    /// The program authenticates the client itself (`Session`'s `clientAuthentication`): the
    /// method's own secret or key is then not needed.
    public var customClientAuthentication: Bool
    /// A CIBA request naming the person to ask (`BackchannelAuthenticationRequest`).
    public var loginHint: Bool
    /// A way to read the pasted redirect URL or code (the paste flow).
    public var pasteReader: Bool
    /// What a public client asking for `offline_access` without DPoP gets.
    public var offlineAccess: OfflineAccessPolicy
    /// An assertion file is at hand (the JWT bearer grant).
    public var assertion: Bool

    /// Makes materials; every default is "not given".
    public init(
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
