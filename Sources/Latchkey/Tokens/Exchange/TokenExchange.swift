import LatchkeyHTTP

/// One RFC 8693 token exchange: a narrower token for one service, in exchange for the session's
/// own token or one given. `Session.exchange(_:margin:cache:)` sends it with the session's client
/// authentication (and a DPoP proof when the session is bound) and caches what it may.
public struct TokenExchange: Sendable, Equatable {
    /// The token given in exchange (RFC 8693 §2.1 `subject_token`).
    public enum Subject: Sendable, Equatable {
        /// The session's access token, refreshed first when it expires within the margin.
        case accessToken
        /// The session's refresh token.
        case refreshToken
        /// The session's (verified) ID token.
        case idToken
        /// A token from elsewhere and its type URN (`subject_token_type`). Never cached. Secret.
        case given(token: String, type: String)
    }

    /// The subject token.
    public var subject: Subject
    /// `actor_token` and `actor_token_type` (RFC 8693 §2.1, delegation), when acting for the
    /// subject. Secret.
    public var actor: (token: String, type: String)?
    /// `audience` values: the logical names of the services the token is for.
    public var audiences: [String]
    /// `resource` values (absolute URIs of the services, RFC 8707).
    public var resources: [String]
    /// The scope asked for, space-separated; nil leaves it to the server.
    public var scope: String?
    /// `requested_token_type` as a URN; nil asks for an access token (sent as its URN).
    public var requestedTokenType: String?

    /// Makes a request; every part but the subject is optional.
    public init(
        subject: Subject = .accessToken, actor: (token: String, type: String)? = nil, audiences: [String] = [],
        resources: [String] = [], scope: String? = nil, requestedTokenType: String? = nil
    ) {
        self.subject = subject
        self.actor = actor
        self.audiences = audiences
        self.resources = resources
        self.scope = scope
        self.requestedTokenType = requestedTokenType
    }

    public static func == (a: TokenExchange, b: TokenExchange) -> Bool {
        a.subject == b.subject && a.actor?.token == b.actor?.token && a.actor?.type == b.actor?.type
            && a.audiences == b.audiences && a.resources == b.resources && a.scope == b.scope
            && a.requestedTokenType == b.requestedTokenType
    }

    /// `urn:ietf:params:oauth:grant-type:token-exchange`.
    public static let grantType = "urn:ietf:params:oauth:grant-type:token-exchange"
    /// The prefix of the token type URNs RFC 8693 §3 registers.
    public static let tokenTypePrefix = "urn:ietf:params:oauth:token-type:"
    /// The access token type URN.
    public static let accessTokenType = tokenTypePrefix + "access_token"

    /// `name` as a token type URN: the short names of RFC 8693 §3 (`access_token`,
    /// `refresh_token`, `id_token`, `jwt`, `saml1`, `saml2`) expand; anything else is taken as the
    /// URN or URI it is.
    public static func tokenType(_ name: String) -> String {
        switch name {
        case "access_token", "refresh_token", "id_token", "jwt", "saml1", "saml2": return tokenTypePrefix + name
        default: return name
        }
    }

    /// The requested type's URN (an access token when none was named).
    public var requestedType: String { requestedTokenType.map(Self.tokenType) ?? Self.accessTokenType }

    /// True when the answer may be kept in the session's cache (cli.md): an access token
    /// (`access_token` or `jwt`) for the session's own access token.
    var isCacheable: Bool {
        guard case .accessToken = subject, actor == nil else { return false }
        return requestedType == Self.accessTokenType || requestedType == Self.tokenTypePrefix + "jwt"
    }

    /// The cache key: the audiences, resources and scope as sets (order and repeats change
    /// nothing the server grants), and the requested type.
    var cacheKey: ExchangeCacheKey {
        ExchangeCacheKey(
            audiences: Array(Set(audiences)).sorted(), resources: Array(Set(resources)).sorted(),
            scope: scope.map { Array(Set($0.split(separator: " ").map(String.init))).sorted().joined(separator: " ") } ?? "",
            requestedType: requestedType)
    }

    /// The form of the request (RFC 8693 §2.1) with `subjectToken` of `subjectType`: the grant
    /// type, each resource and audience, the scope, the requested type, the subject and the actor.
    func parameters(subjectToken: String, subjectType: String) -> [(String, String)] {
        var form: [(String, String)] = [("grant_type", Self.grantType)]
        for resource in resources { form.append(("resource", resource)) }
        for audience in audiences { form.append(("audience", audience)) }
        if let scope, !scope.isEmpty { form.append(("scope", scope)) }
        form.append(("requested_token_type", requestedType))
        form.append(("subject_token", subjectToken))
        form.append(("subject_token_type", subjectType))
        if let actor {
            form.append(("actor_token", actor.token))
            form.append(("actor_token_type", Self.tokenType(actor.type)))
        }
        return form
    }
}

/// What a token exchange issued (RFC 8693 §2.2.1).
public struct ExchangedToken: Sendable, Equatable {
    /// The issued token (`access_token`, whatever its type). Secret.
    public var token: String
    /// `issued_token_type`, a URN.
    public var issuedTokenType: String
    /// `Bearer`, `DPoP`, or `N_A` for a token that is not an access token (RFC 8693 §2.2.1).
    public var tokenType: String
    /// When it expires: a JWT's own `exp` when it has one (some servers copy `expires_in` from
    /// the subject token), else `expires_in` from the answer; nil when neither says.
    public var expiresAt: Timestamp?
    /// The scope granted, when the server said.
    public var scope: String?
    /// The audiences: a JWT's `aud`, else the audiences asked for.
    public var audience: [String]

    /// Makes a value.
    public init(
        token: String, issuedTokenType: String, tokenType: String, expiresAt: Timestamp? = nil, scope: String? = nil,
        audience: [String] = []
    ) {
        self.token = token
        self.issuedTokenType = issuedTokenType
        self.tokenType = tokenType
        self.expiresAt = expiresAt
        self.scope = scope
        self.audience = audience
    }

    /// True when it is still good for more than `minTTL` seconds at `now` (no expiry: good).
    public func isValid(at now: Timestamp, minTTL: Double) -> Bool {
        guard let expiresAt else { return true }
        return expiresAt.timeIntervalSince(now) > minTTL
    }
}
