import LatchkeyCrypto

/// Where a client certificate chain and its private key come from. Read once per `Session`, when
/// it makes its binding (at sign-in, or at its first refresh or logout), and never cached beyond
/// it, so a certificate renewed on disk is picked up by the next session (each CLI command is one)
/// and the key is held in memory only while a session lives. The program decides where the files are and which file
/// rules apply (the CLI: by path, owner-only).
public protocol ClientCertificateSource: Sendable {
    /// The PEM certificate chain (leaf first) and the PEM private key, read now.
    func read() throws(LatchkeyError) -> ClientCertificateMaterial
}

/// The bytes of a client certificate chain and key, as read; `TLSClientIdentity` parses them.
public struct ClientCertificateMaterial: Sendable {
    /// PEM certificates, the leaf first.
    public var certificateChainPEM: [UInt8]
    /// The leaf's PEM private key. Secret.
    public var privateKeyPEM: SecretBytes

    /// Pairs the two.
    public init(certificateChainPEM: [UInt8], privateKeyPEM: SecretBytes) {
        self.certificateChainPEM = certificateChainPEM
        self.privateKeyPEM = privateKeyPEM
    }
}
