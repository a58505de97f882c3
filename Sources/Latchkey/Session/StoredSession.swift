import LatchkeyHTTP
import LatchkeyJOSE

/// Everything one profile keeps between runs: the payload of the encrypted token file.
/// Enough to hand out a cached token and to refresh without discovery.
public struct StoredSession: Sendable, Equatable {
    /// The profile this session belongs to (also bound into the file's AAD).
    public var profile: String
    /// The issuer the tokens came from.
    public var issuer: String
    /// The OAuth client_id.
    public var clientID: String
    /// The current tokens. `token.idToken` holds the last *verified* ID token.
    public var token: Token
    /// The verified ID token's `sub`, kept for status and for the OIDC §12.2 refresh check.
    public var subject: String?
    /// The verified ID token's claims as compact JSON text.
    public var idTokenClaimsJSON: String?
    /// Provider metadata (with overrides applied) so refresh and revocation need no discovery.
    public var metadata: ProviderMetadata
    /// When this session was first signed in.
    public var createdAt: Timestamp
    /// When the tokens were last obtained or refreshed.
    public var updatedAt: Timestamp
    /// The DPoP key and nonces of a bound session (RFC 9449); nil for bearer sessions and for
    /// files written before DPoP.
    package var dpop: DPoPBinding?
    /// How the token is renewed: a refresh, or the client-credentials grant run again.
    package var grant: SessionGrant = .authorization
    /// A device's own client registration (RFC 7591 / RFC 7592) as the registration file
    /// `register` writes it: the record's members, read and written by `LatchkeyRegistration`
    /// (the core only carries them); nil in every session's token file and in files before it.
    package var registration: JSONObject?
    /// The access tokens token exchanges issued for this session's own token (RFC 8693), kept
    /// with it so a new sign-in or a logout drops them (`Session.exchange`).
    package var exchanges = ExchangeCache()

    /// Makes a session value.
    package init(
        profile: String, issuer: String, clientID: String, token: Token, subject: String? = nil,
        idTokenClaimsJSON: String? = nil, metadata: ProviderMetadata, createdAt: Timestamp, updatedAt: Timestamp,
        dpop: DPoPBinding? = nil
    ) {
        self.profile = profile
        self.issuer = issuer
        self.clientID = clientID
        self.token = token
        self.subject = subject
        self.idTokenClaimsJSON = idTokenClaimsJSON
        self.metadata = metadata
        self.createdAt = createdAt
        self.updatedAt = updatedAt
        self.dpop = dpop
    }
}

extension StoredSession {
    /// The verified ID token's `acr` (OIDC Core §2), when it has one: how strongly the person
    /// authenticated, which a resource's step-up challenge (RFC 9470) asks about.
    public var authenticationContext: String? { idTokenClaim("acr")?.stringValue }

    /// The verified ID token's `auth_time`, when it has one: when the person last authenticated.
    public var authenticationTime: Timestamp? {
        guard let seconds = idTokenClaim("auth_time")?.doubleValue, seconds.isFinite else { return nil }
        return Timestamp(timeIntervalSince1970: seconds)
    }

    private func idTokenClaim(_ name: String) -> JSONValue? {
        guard let text = idTokenClaimsJSON, let object = try? JSONParser().parseObject(Array(text.utf8)) else { return nil }
        return object[name]
    }
}
