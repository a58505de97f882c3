import LatchkeyCrypto
import LatchkeyHTTP
import LatchkeyJOSE

/// "Give me a valid access token" for one profile (x/oauth2's TokenSource idea): signs in, hands out
/// the cached token, refreshes when it expires within a margin, and logs out.
///
/// Refresh is single-flight twice over: tasks in this process share one in-flight refresh, and the
/// store's cross-process lock makes other processes re-read instead of refreshing again. A rotated
/// refresh token is saved before anything is returned, so it is never lost.
public actor Session: TokenSource {
    /// The client.
    public nonisolated let configuration: ClientConfiguration
    let store: any TokenStore
    let transports: EndpointTransports
    let time: any TimeSource
    let random: any RandomSource
    let clientSecret: String?
    let clientKey: (any ClientKeySource)?
    let clientAuthentication: (any RequestAuthenticator)?
    let mutualTLS: MutualTLS?
    /// The JWT bearer grant's assertion (RFC 7523 §2.1), read at each sign-in and renewal.
    let assertion: CredentialFile?
    /// What the session did on its own (refused or unsaved nonces), for a program's `-v`.
    package nonisolated let notes: SessionNotes
    let nonces: ServerNonces
    /// The resource origins whose nonce this process has written to the token file: a nonce is
    /// saved when it answered a `use_dpop_nonce` challenge, else once per origin per process, so a
    /// server that rotates its nonce on every answer does not rewrite the file (two fsyncs, the
    /// lock) on every request.
    var savedNonceKeys: Set<String> = []
    /// The session's DPoP key, decoded once per process.
    let keys = DPoPKeyCache()
    let keySets: KeySetCache
    /// The margin `token(replacing: nil)` (every `TokenSource` use, `AuthorizedTransport` included)
    /// refreshes within: the standard one unless the profile sets its own.
    let defaultMargin: RefreshMargin
    private let refreshes = SingleFlight<Refresher.Outcome>()
    /// The cached token exchanges in flight in this process, one per cache key.
    var exchanges: [ExchangeCacheKey: SingleFlight<ExchangedToken>] = [:]
    var skew: Double?
    /// The session last read, refreshed or signed in by this process: resource proofs (each
    /// redirect hop) are made from it without reading the token file again.
    var current: StoredSession?
    /// The session's credentials and the loop that sends them, made once: at sign-in, or at the
    /// first request that needs them (the certificate read and checked then), and replaced when the
    /// stored session's DPoP key changes (a refresh under another process's sign-in). The cached
    /// `validToken` never makes it.
    var binding: SessionBinding?

    /// Makes a session for the profile `store` holds.
    /// - Parameters:
    ///   - transports: the transport per endpoint role (one for all: `EndpointTransports(client)`).
    ///   - clientAuthentication: how the client authenticates; nil follows `configuration.authMethod`
    ///     with `clientSecret` or `clientKey` (`private_key_jwt`, read at each use).
    ///   - keySet: replaces the issuer's JWKS (tests, pinned keys); nil fetches `jwks_uri`.
    ///   - mutualTLS: the client certificate (RFC 8705), read at sign-in or at the first refresh or
    ///     logout of the session (once per `Session`) and presented only to the endpoints where the client authenticates; required by the
    ///     `tls_client_auth` methods. With it, `mtls_endpoint_aliases` replace those endpoints.
    ///   - assertion: the JWT bearer grant's assertion file (`LoginFlow.jwtBearer`), read at the
    ///     sign-in and at each renewal, since its issuer rotates it.
    public init(
        configuration: ClientConfiguration, store: any TokenStore, transports: EndpointTransports,
        time: any TimeSource = SystemTimeSource(), random: any RandomSource, clientSecret: String? = nil,
        clientAuthentication: (any RequestAuthenticator)? = nil, keySet: (any KeySet)? = nil,
        mutualTLS: MutualTLS? = nil, clientKey: (any ClientKeySource)? = nil,
        defaultMargin: RefreshMargin = .standard, assertion: CredentialFile? = nil
    ) {
        self.assertion = assertion
        self.configuration = configuration
        let notes = SessionNotes()
        self.notes = notes
        self.nonces = ServerNonces(notes: notes)
        self.defaultMargin = defaultMargin
        self.store = store
        self.transports = transports
        self.time = time
        self.random = random
        self.clientSecret = clientSecret
        self.clientKey = clientKey
        self.clientAuthentication = clientAuthentication
        self.keySets = KeySetCache(injected: keySet, transport: transports.transport(for: .jwks), time: time)
        self.mutualTLS = mutualTLS
    }

    /// A session whose every endpoint uses `transport`.
    public init(
        configuration: ClientConfiguration, store: any TokenStore, transport: any HTTPTransport,
        time: any TimeSource = SystemTimeSource(), random: any RandomSource, clientSecret: String? = nil,
        keySet: (any KeySet)? = nil, clientKey: (any ClientKeySource)? = nil
    ) {
        self.init(
            configuration: configuration, store: store, transports: EndpointTransports(transport), time: time,
            random: random, clientSecret: clientSecret, keySet: keySet, clientKey: clientKey)
    }

    /// The profile: the store's, so the two can never disagree.
    public nonisolated var profile: String { store.profile }

    // MARK: Tokens

    /// A valid access token, good for at least `minTTL` seconds. With a valid cached token this does
    /// no network I/O and takes no lock. Otherwise it refreshes (single-flight) and saves first.
    /// Throws `.notSignedIn`, `.reauthenticationRequired` (tokens cleared), `.storage`, `.network`, ….
    public func validToken(minTTL: Double = 60, forceRefresh: Bool = false) async throws(LatchkeyError) -> Token {
        try await validToken(margin: .seconds(minTTL), forceRefresh: forceRefresh)
    }

    /// `validToken(minTTL:)` with the margin as a `RefreshMargin`; `.standard` is 60 s, at most half
    /// the token's lifetime, so short-lived tokens are not refreshed on every call.
    public func validToken(margin: RefreshMargin, forceRefresh: Bool = false) async throws(LatchkeyError) -> Token {
        if !forceRefresh, let cached = try store.cachedSession(margin: margin, at: time.now()) {
            current = cached
            return cached.token
        }
        return try await refreshSingleFlight(margin: margin, force: forceRefresh)
    }

    /// `validToken(margin:forceRefresh:)` with the whole session it came from (as read, or as just
    /// saved by the refresh), so a caller that prints more than the token reads nothing again.
    public func validSession(margin: RefreshMargin, forceRefresh: Bool = false) async throws(LatchkeyError) -> StoredSession {
        let token = try await validToken(margin: margin, forceRefresh: forceRefresh)
        if let current, ConstantTime.equals(Array(current.token.accessToken.utf8), Array(token.accessToken.utf8)) { return current }
        guard var session = try loadSession() else { throw .notSignedIn }
        session.token = token
        return session
    }

    /// `TokenSource`: a token valid for `defaultMargin`; with `rejected` (refused by a resource server),
    /// a different one: the stored token when another caller has replaced it already, else a refresh.
    public func token(replacing rejected: Token?) async throws(LatchkeyError) -> Token {
        guard let rejected else { return try await validToken(margin: defaultMargin) }
        if let current = try loadSession()?.token, current.isValid(at: time.now(), minTTL: 0),
            !ConstantTime.equals(Array(current.accessToken.utf8), Array(rejected.accessToken.utf8))
        {
            return current
        }
        return try await validToken(minTTL: 0, forceRefresh: true)
    }

    /// The hot path, synchronously: the stored token when valid for `minTTL` seconds, nil when a refresh
    /// is needed. No network, no lock; throws `.notSignedIn` when nothing is stored.
    public nonisolated func cachedToken(minTTL: Double = 60) throws(LatchkeyError) -> Token? {
        try store.cachedToken(minTTL: minTTL, at: time.now())
    }

    /// Refreshes now, whatever the expiry, and returns the saved session.
    @discardableResult
    public func refresh() async throws(LatchkeyError) -> StoredSession {
        _ = try await refreshSingleFlight(margin: .seconds(0), force: true)
        guard let session = current else { throw .notSignedIn }
        return session
    }

    /// The stored session, or nil when not signed in.
    public func storedSession() throws(LatchkeyError) -> StoredSession? { try loadSession() }

    /// Callers that arrive while a refresh runs share it (`SingleFlight`). A cancelled caller stops
    /// waiting at once while others still wait; the refresh itself, and its HTTP request, is
    /// cancelled only when no caller is left, and that last caller returns once the refresh has
    /// unwound, so an interrupted program never exits in the middle of saving.
    private func refreshSingleFlight(margin: RefreshMargin, force: Bool) async throws(LatchkeyError) -> Token {
        let refresher = Refresher(
            configuration: configuration, store: store, binding: try sessionBinding(), keys: keys,
            verification: verification, time: time, notes: notes, assertion: assertion)
        do {
            let outcome = try await refreshes.run { try await refresher.refreshUnderLock(margin: margin, force: force) }
            record(skew: outcome.skew)
            current = outcome.session
            if let used = outcome.binding { binding = used }
            return outcome.session.token
        } catch {
            throw Self.mapped(error)
        }
    }

    // MARK: Verification

    /// A verifier for `metadata`'s issuer, with algorithms limited to the configured ∩ advertised.
    package func verifier(for metadata: ProviderMetadata) throws(LatchkeyError) -> IDTokenVerifier {
        try verification.verifier(for: metadata, time: time)
    }

    /// How this session verifies the ID tokens it is issued (sign-in and refresh).
    var verification: IDTokenVerification { IDTokenVerification(configuration: configuration, keySets: keySets, time: time) }

    /// The last measured difference between the server's clock and ours (seconds, server minus local),
    /// from the last sign-in or refresh response carrying a `Date` header; nil when unknown.
    public var observedClockSkew: Double? { skew }

    /// The last measured clock skew in whole seconds (provider minus local: positive when the local
    /// clock is behind) when it exceeds the leeway, else nil; the program words the warning.
    public var significantClockSkew: Int64? {
        guard let skew, ClockSkew.isSignificant(skew, leeway: configuration.leeway) else { return nil }
        return ClockSkew.seconds(skew)
    }

    func record(skew: Double?) { if let skew { self.skew = skew } }

    /// The binding this session holds, made now if it has none yet.
    func sessionBinding() throws(LatchkeyError) -> SessionBinding {
        if let binding { return binding }
        let made = try makeBinding(identity: clientIdentity())
        binding = made
        return made
    }

    /// A binding before a stored session is read: the client's authentication, the transports
    /// (presenting `identity` where mutual TLS applies) and this session's nonces;
    /// `bound(to:keys:)` adds a stored session's DPoP key.
    func makeBinding(identity: TLSClientIdentity?) throws(LatchkeyError) -> SessionBinding {
        let authenticator: any RequestAuthenticator
        if let clientAuthentication {
            authenticator = clientAuthentication
        } else {
            authenticator = try configuration.clientAuthenticator(secret: clientSecret, key: clientKey)
        }
        var transports = self.transports
        var presented: TLSClientIdentity?
        if let mutualTLS, let identity {
            transports = mutualTLS.transports(transports, presenting: identity)
            presented = identity
        }
        return SessionBinding(
            clientAuthentication: authenticator, nonces: nonces, certificate: presented,
            transports: transports, time: time, random: random)
    }

    /// The client certificate, read and checked now; nil without `mutualTLS`. A mutual-TLS auth
    /// method without one is a configuration problem.
    func clientIdentity() throws(LatchkeyError) -> TLSClientIdentity? {
        guard let mutualTLS else {
            if configuration.authMethod.usesClientCertificate {
                throw .configuration(.missingClientCertificate(method: configuration.authMethod))
            }
            return nil
        }
        return try mutualTLS.identity(at: time.now())
    }

    func loadSession() throws(LatchkeyError) -> StoredSession? {
        do { return try store.load() } catch { throw .storage(error) }
    }

    /// What an error out of `TokenStore.withLock` means: the body's own `LatchkeyError`, a
    /// cancellation, or the store's `TokenStoreError`. A store that throws anything else from
    /// `withLock` breaks its contract; it is reported as the lock it could not give (EIO), since
    /// that is all the caller can know (errno 5, EIO: this file has no Glibc).
    static func mapped(_ error: any Error) -> LatchkeyError {
        if let e = error as? LatchkeyError { return e }
        if error is CancellationError { return .cancelled }
        if let e = error as? TokenStoreError { return .storage(e) }
        return .storage(.lockFailed(path: "", errno: 5))  // EIO
    }
}
