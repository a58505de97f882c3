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
    let nonces = ServerNonces()
    /// The session's DPoP key, decoded once per process.
    let keys = DPoPKeyCache()
    let keySets: KeySetCache
    /// The margin `token(replacing: nil)` (every `TokenSource` use, `AuthorizedTransport` included)
    /// refreshes within: the standard one unless the profile sets its own.
    let defaultMargin: RefreshMargin
    private let refreshes = SingleFlight<Refresher.Outcome>()
    private var skew: Double?
    /// The session last read, refreshed or signed in by this process: resource proofs (each
    /// redirect hop) are made from it without reading the token file again.
    private var current: StoredSession?

    /// Makes a session for the profile `store` holds.
    /// - Parameters:
    ///   - transports: the transport per endpoint role (one for all: `EndpointTransports(client)`).
    ///   - clientAuthentication: how the client authenticates; nil follows `configuration.authMethod`
    ///     with `clientSecret` or `clientKey` (`private_key_jwt`, read at each use).
    ///   - keySet: replaces the issuer's JWKS (tests, pinned keys); nil fetches `jwks_uri`.
    ///   - mutualTLS: the client certificate (RFC 8705), read at each sign-in, refresh and logout and
    ///     presented only to the endpoints where the client authenticates; required by the
    ///     `tls_client_auth` methods. With it, `mtls_endpoint_aliases` replace those endpoints.
    public init(configuration: ClientConfiguration, store: any TokenStore, transports: EndpointTransports,
                time: any TimeSource = SystemTimeSource(), random: any RandomSource, clientSecret: String? = nil,
                clientAuthentication: (any RequestAuthenticator)? = nil, keySet: (any KeySet)? = nil,
                mutualTLS: MutualTLS? = nil, clientKey: (any ClientKeySource)? = nil,
                defaultMargin: RefreshMargin = .standard) {
        self.configuration = configuration
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
    public init(configuration: ClientConfiguration, store: any TokenStore, transport: any HTTPTransport,
                time: any TimeSource = SystemTimeSource(), random: any RandomSource, clientSecret: String? = nil,
                keySet: (any KeySet)? = nil, clientKey: (any ClientKeySource)? = nil) {
        self.init(configuration: configuration, store: store, transports: EndpointTransports(transport), time: time,
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
           !ConstantTime.equals(Array(current.accessToken.utf8), Array(rejected.accessToken.utf8)) {
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
        let refresher = Refresher(configuration: configuration, store: store, binding: try binding(), keys: keys,
                                  keySets: keySets, time: time)
        do {
            let outcome = try await refreshes.run { try await refresher.refreshUnderLock(margin: margin, force: force) }
            record(skew: outcome.skew)
            current = outcome.session
            return outcome.session.token
        } catch {
            throw Self.mapped(error)
        }
    }

    // MARK: Sign-in

    /// Signs in with `flow`, verifies the ID token (when one is issued), saves the session and reports
    /// `.authorized`. `metadata` skips discovery (the CLI passes stored metadata); `timeout` caps the
    /// wait; `pasteReader` supplies the pasted redirect URL or code for `.paste`; `backchannel`
    /// names the person to ask for `.ciba`. `alongside` writes the program's own record of the
    /// sign-in (the CLI's profile file) as one unit with the tokens: under the store's lock, after
    /// the old session is deleted and before the new one is saved (docs/architecture.md, "A
    /// sign-in saves two files"), so a crash never leaves tokens the record does not describe.
    @discardableResult
    public func signIn(flow: LoginFlow = .device, metadata: ProviderMetadata? = nil, timeout: Double? = nil,
                       offlineAccess: OfflineAccessPolicy = .warn,
                       pasteReader: (@Sendable () async throws -> String?)? = nil,
                       backchannel: BackchannelAuthenticationRequest? = nil,
                       alongside: (@Sendable (StoredSession) throws -> Void)? = nil,
                       events: @escaping LoginEventHandler = { _ in }) async throws(LatchkeyError) -> StoredSession {
        // MARK: sign-in rules (ClientConfiguration.problems): refused before anything is sent.
        let materials = SignInMaterials(clientSecret: clientSecret != nil, clientKey: clientKey != nil,
                                        clientCertificate: mutualTLS != nil, customClientAuthentication: clientAuthentication != nil,
                                        loginHint: backchannel != nil, pasteReader: pasteReader != nil, offlineAccess: offlineAccess)
        if let problem = configuration.problems(for: flow, given: materials).first { throw .configuration(problem) }
        // The certificate is checked before anything is sent, discovery included.
        let identity = try clientIdentity()
        let meta: ProviderMetadata
        if let metadata {
            meta = try ProviderDiscovery.validated(configuration.endpoints.applied(to: metadata))
        } else {
            meta = try await ProviderDiscovery.discover(issuer: configuration.issuer, transport: transports.transport(for: .discovery),
                                                        overrides: configuration.endpoints, quirks: configuration.quirks, time: time)
        }
        // MARK: sign-in rules that need the metadata (PAR, DPoP for offline access), before anything else is sent.
        if let problem = configuration.problems(for: flow, given: materials, metadata: meta).first { throw .configuration(problem) }
        // RFC 8705 §5: a client presenting its certificate uses the aliases. The provider's own
        // metadata is what is stored; `TokenClient` applies the aliases at each use (sign-in,
        // refresh, logout), so the ordinary endpoints stay known (an endpoint `aud` names them).
        // A new key per sign-in (RFC 9449), from the injected DRBG; it lives only in the token file.
        let dpopKey = configuration.dpop.uses(meta) ? try DPoPKey(random: random) : nil
        if let dpopKey { keys.remember(dpopKey) }
        let offline = flow != .clientCredentials && OfflineAccessPolicy.applies(to: configuration)
        var client = TokenClient(configuration: configuration, metadata: meta, pipeline: try binding(identity: identity).proving(with: dpopKey).pipeline)
        if offline && offlineAccess == .requireDPoP { client.requiresBinding = true }
        let response: TokenResponse
        var nonce: String?
        var authRequestID: String?
        switch flow {
        case .device:
            response = try await DeviceAuthorizationFlow(client: client, time: time, random: random)
                .run(timeout: timeout, events: events)
        case .clientCredentials:
            response = try await client.clientCredentials()
        case .browser, .paste:
            let codeFlow = AuthorizationCodeFlow(client: client, random: random, time: time)
            let receiver: any RedirectReceiver
            if flow == .browser {
                receiver = try LoopbackRedirectReceiver(redirectURI: configuration.redirectURI)
            } else {
                guard let pasteReader else { throw .configuration(.missingPasteReader) }
                receiver = PastedRedirectReceiver(redirectURI: configuration.redirectURI ?? PastedRedirectReceiver.defaultRedirectURI,
                                                  readLine: pasteReader)
            }
            let result = try await codeFlow.run(receiver: receiver, timeout: timeout, events: events)
            response = result.response
            nonce = result.nonce
        case .ciba:
            guard let backchannel else { throw .configuration(.missingLoginHint) }
            let result = try await BackchannelAuthenticationFlow(client: client, time: time)
                .run(backchannel, timeout: timeout, events: events)
            response = result.response
            authRequestID = result.authRequestID
        }
        let receivedAt = time.now()
        skew = ClockSkew.measure(serverDate: response.serverDate, localNow: receivedAt)
        if let skew, ClockSkew.isSignificant(skew, leeway: configuration.leeway) {
            events(.clockSkew(offsetSeconds: ClockSkew.seconds(skew)))
        }
        var verified: VerifiedIDToken?
        if flow != .clientCredentials, let idToken = response.idToken {
            try ClockSkew.check(skew)
            let judge = ClockSkew.timeSource(time, skew: skew, leeway: configuration.leeway)
            verified = try await IDTokenVerifier.forClient(configuration, metadata: meta, keySet: try keySets.keySet(for: meta), time: judge)
                .verify(idToken, nonce: nonce, accessToken: response.accessToken, authRequestID: authRequestID)
        }
        var token = flow == .clientCredentials ? ClientCredentialsToken.token(from: response, at: receivedAt) : response.token(at: receivedAt)
        token.idToken = verified?.compact
        let binding = TokenBinding(token)
        // A Bearer answer under `auto` leaves the session unbound: the key is not kept.
        let dpop = binding == .dpop ? dpopKey.map { DPoPBinding(key: $0, nonces: nonces.recent) } : nil
        // A client acting as itself is its own subject (RFC 6749 §4.4; the token's `sub` at Glewlwyd).
        let subject = flow == .clientCredentials ? configuration.clientID : verified?.subject
        var built = StoredSession(profile: store.profile, issuer: verified?.claims.issuer ?? meta.issuer, clientID: configuration.clientID, token: token,
                                  subject: subject, idTokenClaimsJSON: verified?.claimsJSON, metadata: meta,
                                  createdAt: receivedAt, updatedAt: receivedAt, dpop: dpop)
        if flow == .clientCredentials { built.grant = .clientCredentials }
        let session = built
        let store = self.store
        // MARK: the profile and the tokens saved as one unit (docs/architecture.md, "A sign-in saves two files").
        // Each write is atomic; a kill between two leaves "not signed in" under the old or the new
        // profile, never tokens under a profile that does not describe them.
        do {
            try await store.withLock {
                if let alongside {
                    try store.delete()
                    try alongside(session)
                }
                try store.save(session)
            }
        } catch {
            throw Self.mapped(error)
        }
        current = session
        // Warned about once the sign-in has succeeded, and only when a refresh token was issued.
        if OfflineAccessPolicy.warns(configuration, session) { events(.offlineAccessWithoutDPoP(dpopOffered: DPoPMode.auto.uses(meta))) }
        events(.authorized(issuer: meta.issuer, subject: subject, scope: token.scope,
                           expiresAt: token.expiresAt, idTokenVerified: verified != nil, tokenBinding: binding))
        return session
    }

    // MARK: Logout

    /// Revokes the refresh token, then the access token (RFC 7009), unless `revoke` is false, and
    /// deletes the local session even when revocation fails. Returns what could not be revoked.
    ///
    /// All of it runs under the store's lock: a refresh in another process that holds the lock
    /// finishes first, and what is revoked is what is stored then, so no rotated refresh token can
    /// be saved after logout has said "revoked and deleted".
    public func logout(revoke: Bool = true) async throws(LatchkeyError) -> [RevocationFailure] {
        let store = self.store
        let configuration = self.configuration
        let binding = Result { () throws(LatchkeyError) in try self.binding() }
        let keys = self.keys
        current = nil
        do {
            return try await store.withLock { () async throws -> [RevocationFailure] in
                var warnings: [RevocationFailure] = []
                let session: StoredSession?
                do { session = try store.load() } catch {
                    // An unreadable file still gets deleted: logout must always leave nothing behind.
                    warnings.append(.unreadableSession(.storage(error)))
                    session = nil
                }
                if revoke, let session {
                    switch binding {
                    case .failure(let error):
                        warnings.append(.failed(session.token.refreshToken == nil ? .accessToken : .refreshToken, error))
                    case .success(let binding):
                        // A key that no longer decodes still lets the revocation go out, without a proof.
                        let bound = (try? binding.bound(to: session.dpop, keys: keys)) ?? binding
                        let client = TokenClient(configuration: configuration, metadata: session.metadata, pipeline: bound.pipeline)
                        if let refreshToken = session.token.refreshToken,
                           let w = await client.revoke(refreshToken, kind: .refreshToken, accessToken: session.token.accessToken) {
                            warnings.append(w)
                        }
                        if let w = await client.revoke(session.token.accessToken, kind: .accessToken,
                                                       accessToken: session.token.accessToken) {
                            warnings.append(w)
                        }
                    }
                }
                do { try store.delete() } catch { throw LatchkeyError.storage(error) }
                return warnings
            }
        } catch {
            throw Self.mapped(error)
        }
    }

    // MARK: Verification

    /// A verifier for `metadata`'s issuer, with algorithms limited to the configured ∩ advertised.
    package func verifier(for metadata: ProviderMetadata) throws(LatchkeyError) -> IDTokenVerifier {
        try IDTokenVerifier.forClient(configuration, metadata: metadata, keySet: try keySets.keySet(for: metadata), time: time)
    }

    /// The last measured difference between the server's clock and ours (seconds, server minus local),
    /// from the last sign-in or refresh response carrying a `Date` header; nil when unknown.
    public var observedClockSkew: Double? { skew }

    /// A warning line when the last measured clock skew exceeds the leeway, else nil.
    public var clockSkewWarning: String? { ClockSkew.warning(skew: skew, leeway: configuration.leeway) }

    func record(skew: Double?) { if let skew { self.skew = skew } }

    /// The session's binding before a stored session is read: the client's authentication, the
    /// transports (presenting the certificate, read now, where mutual TLS applies) and this
    /// session's nonces; `bound(to:keys:)` adds a stored session's DPoP key.
    func binding(identity: TLSClientIdentity? = nil) throws(LatchkeyError) -> SessionBinding {
        let authenticator: any RequestAuthenticator
        if let clientAuthentication {
            authenticator = clientAuthentication
        } else {
            authenticator = try configuration.clientAuthenticator(secret: clientSecret, key: clientKey)
        }
        var transports = self.transports
        var presented: TLSClientIdentity?
        let certificate: TLSClientIdentity?
        if let identity { certificate = identity } else { certificate = try clientIdentity() }
        if let mutualTLS, let certificate {
            transports = mutualTLS.transports(transports, presenting: certificate)
            presented = certificate
        }
        return SessionBinding(clientAuthentication: authenticator, dpopKey: nil, nonces: nonces, certificate: presented,
                              transports: transports, time: time, random: random)
    }

    /// The client certificate, read and checked now; nil without `mutualTLS`. A mutual-TLS auth
    /// method without one is a configuration problem.
    func clientIdentity() throws(LatchkeyError) -> TLSClientIdentity? {
        guard let mutualTLS else {
            if configuration.authMethod.usesClientCertificate { throw .configuration(.missingClientCertificate(method: configuration.authMethod)) }
            return nil
        }
        return try mutualTLS.identity(at: time.now())
    }

    private func loadSession() throws(LatchkeyError) -> StoredSession? {
        do { return try store.load() } catch { throw .storage(error) }
    }

    static func mapped(_ error: any Error) -> LatchkeyError {
        if let e = error as? LatchkeyError { return e }
        if error is CancellationError { return .cancelled }
        return .storage(error)
    }
}

extension Session: DPoPProofSource {
    /// A proof for a resource request with `accessToken`, from the stored session's key.
    /// The session is the one this process last read or refreshed when it holds `accessToken`
    /// (so a redirect hop reads nothing), else the stored one.
    public func dpopProof(method: String, url: HTTPURL, accessToken: String) async throws(LatchkeyError) -> String {
        var session = current
        if session.map({ !ConstantTime.equals(Array($0.token.accessToken.utf8), Array(accessToken.utf8)) }) ?? true {
            session = try loadSession()
            current = session
        }
        guard let session, let dpop = session.dpop else { throw .tokenBinding(.missingKey) }
        nonces.merge(dpop.nonces)
        return try session.dpopProof(method: method, url: url, accessToken: accessToken, nonce: nonces.nonce(for: url),
                                     at: time.now(), random: random, key: try keys.key(for: dpop, random: random))
    }

    /// Remembers a resource server's nonce, for this process and in the token file, so the next
    /// process's first proof to that server carries it (the authorization server's is saved with
    /// each sign-in and refresh).
    public func rememberNonce(_ nonce: String, for url: HTTPURL) async {
        nonces.remember(nonce, for: url)
        await saveNonce(nonce, origin: url.origin)
    }

    /// Writes `nonce` into the stored session under the store's lock, over the tokens stored then
    /// (another process may have refreshed). Best effort, never at the cost of the tokens: nothing
    /// is written when there is no bound session (logged out meanwhile) or the nonce is already
    /// there, and a failed write leaves the file as it was (saves are atomic); a nonce only saves
    /// the next process one round trip.
    private func saveNonce(_ nonce: String, origin: String) async {
        let store = self.store
        do {
            try await store.withLock {
                guard var session = try store.load(), var dpop = session.dpop, dpop.nonces[origin] != nonce else { return }
                dpop.nonces.remember(nonce, for: origin)
                session.dpop = dpop
                try store.save(session)
            }
        } catch {
            return
        }
    }
}

/// Which sign-in flow to run.
public enum LoginFlow: String, Sendable, Equatable, CaseIterable {
    /// RFC 8628 device authorization grant (the default).
    case device
    /// Authorization code + PKCE with a loopback redirect listener (RFC 8252 §7.3).
    case browser
    /// Authorization code + PKCE; the user pastes the redirect URL (or the bare code).
    case paste
    /// RFC 6749 §4.4: no person; the client authenticates and acts as itself.
    case clientCredentials = "client-credentials"
    /// OpenID CIBA in poll mode: the provider asks the person named by a login hint on their own
    /// device; needs client authentication.
    case ciba
}
