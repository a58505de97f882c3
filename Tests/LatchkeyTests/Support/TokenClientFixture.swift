import LatchkeyCrypto
import LatchkeyHTTP

@testable import Latchkey

extension TokenClient {
    /// A token client over one transport, authenticated as `configuration.authMethod` says, with a
    /// binding made the way a `Session` makes its own (`clientSecret` for the `client_secret_*`
    /// methods, `clientKey` for `private_key_jwt`); `dpopKey` proves its requests.
    static func testing(
        configuration: ClientConfiguration, metadata: ProviderMetadata, transport: any HTTPTransport,
        clientSecret: String? = nil, clientKey: (any ClientKeySource)? = nil, dpopKey: DPoPKey? = nil,
        time: any TimeSource = SystemTimeSource(), random: any RandomSource
    ) throws(LatchkeyError) -> TokenClient {
        let authentication = try configuration.clientAuthenticator(secret: clientSecret, key: clientKey)
        return TokenClient(
            configuration: configuration, metadata: metadata,
            binding: SessionBinding(
                clientAuthentication: authentication, dpopKey: dpopKey,
                transports: EndpointTransports(transport), time: time, random: random))
    }
}
