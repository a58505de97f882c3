/// Which kind of server handed out a nonce. An authorization server and an API on one origin each
/// keep their own (RFC 9449 §8 and §9 nonces are independent), so neither overwrites the other's
/// and costs it a round trip.
package enum NonceHolder: Sendable, Equatable {
    /// Token, PAR, device, CIBA and revocation endpoints.
    case authorizationServer
    /// A resource server (`fetch`, `token --url`).
    case resourceServer

    /// The key of `origin`'s nonce in `RecentNonces` and in the token file. An authorization
    /// server's is the bare origin, as files written before the split have it; a resource
    /// server's is prefixed with a word no origin can start with.
    package func key(_ origin: String) -> String {
        switch self {
        case .authorizationServer: return origin
        case .resourceServer: return Self.resourcePrefix + origin
        }
    }

    static let resourcePrefix = "resource "
}
