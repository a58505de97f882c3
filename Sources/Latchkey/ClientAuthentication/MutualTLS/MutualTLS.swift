import LatchkeyHTTP

/// Mutual-TLS client authentication (RFC 8705): which certificate, and which connections carry it.
///
/// The certificate goes only on the connections to the provider's endpoints where the client
/// authenticates (`EndpointRole.authenticatesClient`: token, revocation, device authorization, PAR,
/// CIBA), through a transport of their own; discovery, the JWKS and every resource stay on the
/// plain transport, so a resource server never learns the device's identity and a token is never
/// sent over a connection that a foreign server could have asked a certificate on.
public struct MutualTLS: Sendable {
    /// Where the certificate and key are read from, once per session.
    public let source: any ClientCertificateSource
    /// A transport presenting `identity` (for the CLI: an `HTTPClient` whose configuration has it).
    public let connect: @Sendable (TLSClientIdentity) -> any HTTPTransport

    /// Makes the setting.
    public init(source: any ClientCertificateSource, connect: @escaping @Sendable (TLSClientIdentity) -> any HTTPTransport) {
        self.source = source
        self.connect = connect
    }

    /// The roles whose connections present the certificate.
    public static let certificateRoles: [EndpointRole] = EndpointRole.allCases.filter(\.authenticatesClient)

    /// Reads and checks the certificate and key now: an unreadable, expired, not-yet-valid or
    /// mismatched pair fails here, before anything is sent.
    public func identity(at now: Timestamp) throws(LatchkeyError) -> TLSClientIdentity {
        let material = try source.read()
        do {
            return try TLSClientIdentity(
                certificateChainPEM: material.certificateChainPEM,
                privateKeyPEM: material.privateKeyPEM, at: now)
        } catch {
            throw .clientCertificate(.unusable(error))
        }
    }

    /// `base` with the certificate-carrying roles on a transport presenting `identity`.
    public func transports(_ base: EndpointTransports, presenting identity: TLSClientIdentity) -> EndpointTransports {
        base.using(connect(identity), for: Self.certificateRoles)
    }
}
