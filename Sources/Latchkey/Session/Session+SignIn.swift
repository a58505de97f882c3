import LatchkeyCrypto
import LatchkeyHTTP
import LatchkeyJOSE

/// Signing in: the one entry point for every flow, and the save of what it brought.
extension Session {

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
}
