import LatchkeyHTTP
import Synchronization

/// The issuer key sets one session verifies ID tokens with: the injected one, else one
/// `RemoteKeySet` per `jwks_uri`, kept for the life of the session so its cache and its
/// single-flight fetch are shared by sign-in and every refresh.
final class KeySetCache: Sendable {
    private let injected: (any KeySet)?
    private let transport: any HTTPTransport
    private let time: any TimeSource
    private let sets = Mutex<[String: RemoteKeySet]>([:])

    init(injected: (any KeySet)?, transport: any HTTPTransport, time: any TimeSource) {
        self.injected = injected
        self.transport = transport
        self.time = time
    }

    /// The key set for `metadata`'s `jwks_uri`.
    func keySet(for metadata: ProviderMetadata) throws(LatchkeyError) -> any KeySet {
        if let injected { return injected }
        let url = try EndpointExchange.endpointURL(metadata.jwksURI, name: "jwks_uri")
        return sets.withLock { sets in
            if let existing = sets[url.absoluteString] { return existing }
            let set = RemoteKeySet(url: url, transport: transport, time: time)
            sets[url.absoluteString] = set
            return set
        }
    }
}
