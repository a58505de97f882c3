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
    /// `authentication` asks for `acr_values`/`max_age` on the flow's
    /// request and is checked on the ID token (a step-up after RFC 9470's challenge).
    @discardableResult
    public func signIn(
        flow: LoginFlow = .device, metadata: ProviderMetadata? = nil, timeout: Double? = nil,
        offlineAccess: OfflineAccessPolicy = .warn,
        pasteReader: (@Sendable () async throws -> String?)? = nil,
        backchannel: BackchannelAuthenticationRequest? = nil,
        authentication: AuthenticationRequirement = AuthenticationRequirement(),
        alongside: (@Sendable (StoredSession) throws -> Void)? = nil,
        events: @escaping LoginEventHandler = { _ in }
    ) async throws(LatchkeyError) -> StoredSession {
        // Sign-in rules (ClientConfiguration.problems): refused before anything is sent.
        let materials = SignInMaterials(
            clientSecret: clientSecret != nil, clientKey: clientKey != nil,
            clientCertificate: mutualTLS != nil, customClientAuthentication: clientAuthentication != nil,
            loginHint: backchannel != nil, pasteReader: pasteReader != nil, offlineAccess: offlineAccess,
            assertion: assertion != nil)
        if let problem = configuration.problems(for: flow, given: materials).first { throw .configuration(problem) }
        // The certificate, and the assertion files (unsafe, not a JWT, expired), are checked
        // before anything is sent, discovery included; the files are read again where they are used.
        let identity = try clientIdentity()
        try checkAssertionFiles(for: flow)
        let meta = try await signInMetadata(metadata)
        // The rules that need the metadata (PAR, DPoP for offline access), before anything else is sent.
        if let problem = configuration.problems(for: flow, given: materials, metadata: meta).first { throw .configuration(problem) }
        let client = try signInClient(
            flow: flow, metadata: meta, identity: identity, offlineAccess: offlineAccess, authentication: authentication)
        let asked = client.authentication
        let grant = try await run(
            flow, client: client, timeout: timeout, pasteReader: pasteReader, backchannel: backchannel,
            events: events)
        let receivedAt = time.now()
        skew = ClockSkew.measure(serverDate: grant.response.serverDate, localNow: receivedAt)
        if let skew, ClockSkew.isSignificant(skew, leeway: configuration.leeway) {
            events(.clockSkew(offsetSeconds: ClockSkew.seconds(skew)))
        }
        var verified: VerifiedIDToken?
        if !flow.isRepeatedGrant, let idToken = grant.response.idToken {
            verified = try await verification.verify(
                idToken, from: meta, skew: skew, nonce: grant.nonce,
                accessToken: grant.response.accessToken, authRequestID: grant.authRequestID, authentication: asked)
        } else if flow != .clientCredentials, !asked.isEmpty {
            // What was asked of the authentication is answered in the ID token only.
            throw .verification(.missingClaim(asked.acrValues.isEmpty ? "auth_time" : "acr"))
        }
        let session = storedSession(
            flow: flow, response: grant.response, verified: verified, assertionSubject: grant.subject, metadata: meta,
            dpopKey: client.dpopKey, at: receivedAt)
        try await save(session, alongside: alongside)
        current = session
        // The binding the session now holds keeps the key only when the token is bound to it.
        binding = client.binding.proving(with: session.dpop == nil ? nil : client.dpopKey)
        // Warned about once the sign-in has succeeded, and only when a refresh token was issued.
        if OfflineAccessPolicy.warns(configuration, session) { events(.offlineAccessWithoutDPoP(dpopOffered: DPoPMode.auto.uses(meta))) }
        events(
            .authorized(
                issuer: meta.issuer, subject: session.subject, scope: session.token.scope,
                expiresAt: session.token.expiresAt, idTokenVerified: verified != nil, tokenBinding: TokenBinding(session.token)))
        return session
    }

    /// Reads the assertion files a sign-in with `flow` will send, so that one that cannot be used
    /// stops it before the first request: the JWT bearer grant's, and a ready-made client assertion's.
    private func checkAssertionFiles(for flow: LoginFlow) throws(LatchkeyError) {
        if flow == .jwtBearer, let assertion { _ = try assertion.jwt(at: time.now()) }
        try clientAuthentication?.checkUsable(at: time.now())
    }

    /// `metadata` with the configured overrides applied and checked, or the issuer's, discovered now.
    private func signInMetadata(_ metadata: ProviderMetadata?) async throws(LatchkeyError) -> ProviderMetadata {
        if let metadata { return try ProviderDiscovery.validated(configuration.endpoints.applied(to: metadata)) }
        return try await ProviderDiscovery.discover(
            issuer: configuration.issuer, transport: transports.transport(for: .discovery),
            overrides: configuration.endpoints, quirks: configuration.quirks, time: time)
    }

    /// The token client of a sign-in: a new binding presenting `identity`, with a new DPoP key
    /// when the configuration and the provider use DPoP (RFC 9449: one key per sign-in, from the
    /// injected DRBG; it lives only in the token file). RFC 8705 §5: a client presenting its
    /// certificate uses the aliases; the provider's own metadata is what is stored, and
    /// `TokenClient` applies the aliases at each use (sign-in, refresh, logout), so the ordinary
    /// endpoints stay known (an endpoint `aud` names them).
    private func signInClient(
        flow: LoginFlow, metadata: ProviderMetadata, identity: TLSClientIdentity?,
        offlineAccess: OfflineAccessPolicy, authentication: AuthenticationRequirement
    ) throws(LatchkeyError) -> TokenClient {
        let dpopKey = configuration.dpop.uses(metadata) ? try DPoPKey(random: random) : nil
        if let dpopKey { keys.remember(dpopKey) }
        var client = TokenClient(
            configuration: configuration, metadata: metadata,
            binding: try makeBinding(identity: identity).proving(with: dpopKey))
        client.authentication = authentication
        let offline = !flow.isRepeatedGrant && OfflineAccessPolicy.applies(to: configuration)
        if offline && offlineAccess == .requireDPoP { client.requiresBinding = true }
        return client
    }

    /// What a flow brought: the token response, and what its ID token is checked against.
    private struct Grant {
        var response: TokenResponse
        /// The `nonce` the authorization request carried (code flows).
        var nonce: String? = nil
        /// CIBA's `auth_req_id`.
        var authRequestID: String? = nil
        /// The JWT bearer assertion's `sub`, when readable.
        var subject: String? = nil
    }

    /// Runs `flow` to its token response.
    private func run(
        _ flow: LoginFlow, client: TokenClient, timeout: Double?, pasteReader: (@Sendable () async throws -> String?)?,
        backchannel: BackchannelAuthenticationRequest?, events: @escaping LoginEventHandler
    ) async throws(LatchkeyError) -> Grant {
        switch flow {
        case .device:
            return Grant(
                response: try await DeviceAuthorizationFlow(client: client, time: time, random: random)
                    .run(timeout: timeout, events: events))
        case .clientCredentials:
            return Grant(response: try await client.clientCredentials())
        case .jwtBearer:
            // Read now, and checked for expiry before anything is sent.
            guard let assertion else { throw .configuration(.missingAssertion) }
            let jwt = try assertion.jwt(at: time.now())
            return Grant(response: try await client.jwtBearer(assertion: jwt), subject: CredentialFile.subject(of: jwt))
        case .browser, .paste:
            let codeFlow = AuthorizationCodeFlow(client: client, random: random, time: time)
            let receiver: any RedirectReceiver
            if flow == .browser {
                receiver = try LoopbackRedirectReceiver(redirectURI: configuration.redirectURI)
            } else {
                guard let pasteReader else { throw .configuration(.missingPasteReader) }
                receiver = PastedRedirectReceiver(
                    redirectURI: configuration.redirectURI ?? PastedRedirectReceiver.defaultRedirectURI,
                    readLine: pasteReader)
            }
            let result = try await codeFlow.run(receiver: receiver, timeout: timeout, events: events)
            return Grant(response: result.response, nonce: result.nonce)
        case .ciba:
            guard let backchannel else { throw .configuration(.missingLoginHint) }
            let result = try await BackchannelAuthenticationFlow(client: client, time: time)
                .run(backchannel, timeout: timeout, events: events)
            return Grant(response: result.response, authRequestID: result.authRequestID)
        }
    }

    /// The session a sign-in stores. A Bearer answer under `auto` leaves it unbound: the key is not
    /// kept. A client acting as itself is its own subject (RFC 6749 §4.4; the token's `sub` at
    /// Glewlwyd); a JWT bearer session's is its assertion's `sub` (RFC 7523 §3), when readable.
    private func storedSession(
        flow: LoginFlow, response: TokenResponse, verified: VerifiedIDToken?, assertionSubject: String?,
        metadata: ProviderMetadata, dpopKey: DPoPKey?, at receivedAt: Timestamp
    ) -> StoredSession {
        var token =
            flow.isRepeatedGrant ? ClientCredentialsToken.token(from: response, at: receivedAt) : response.token(at: receivedAt)
        token.idToken = verified?.compact
        let dpop = TokenBinding(token) == .dpop ? dpopKey.map { DPoPBinding(key: $0, nonces: nonces.recent) } : nil
        let subject: String?
        switch flow {
        case .clientCredentials: subject = configuration.clientID
        case .jwtBearer: subject = assertionSubject
        default: subject = verified?.subject
        }
        var session = StoredSession(
            profile: store.profile, issuer: verified?.claims.issuer ?? metadata.issuer, clientID: configuration.clientID,
            token: token, subject: subject, idTokenClaimsJSON: verified?.claimsJSON, metadata: metadata,
            createdAt: receivedAt, updatedAt: receivedAt, dpop: dpop)
        if flow == .clientCredentials { session.grant = .clientCredentials }
        if flow == .jwtBearer { session.grant = .jwtBearer }
        return session
    }

    /// The profile and the tokens saved as one unit (docs/architecture.md, "A sign-in saves two
    /// files"). Each write is atomic; a kill between two leaves "not signed in" under the old or the
    /// new profile, never tokens under a profile that does not describe them.
    private func save(_ session: StoredSession, alongside: (@Sendable (StoredSession) throws -> Void)?) async throws(LatchkeyError) {
        let store = self.store
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
    }
}
