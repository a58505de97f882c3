import LatchkeyCrypto
import LatchkeyHTTP
import LatchkeyJOSE

/// Authorization code grant with PKCE S256 (RFC 6749 §4.1, RFC 7636) for native apps (RFC 8252):
/// build the authorization URL, receive the redirect, check `state` and RFC 9207 `iss`, exchange the code.
struct AuthorizationCodeFlow: Sendable {
    /// The token client (endpoints, client authentication).
    let client: TokenClient
    let random: any RandomSource
    let time: any TimeSource

    /// Makes a flow; `time` measures a pushed request's `expires_in`.
    init(client: TokenClient, random: any RandomSource, time: any TimeSource = SystemTimeSource()) {
        self.client = client
        self.random = random
        self.time = time
    }

    /// One authorization request's secrets, kept until the redirect comes back.
    struct Request: Sendable {
        /// The URL to open.
        let url: HTTPURL
        /// The CSRF `state`.
        let state: String
        /// The `nonce` bound into the ID token.
        let nonce: String
        /// The PKCE pair.
        let pkce: PKCE
        /// The `redirect_uri` sent.
        let redirectURI: String
        /// For a pushed request (RFC 9126): when its `request_uri` stops being valid.
        var pushedExpiresAt: Timestamp? = nil
    }

    /// Builds the authorization request for `redirectURI`, every parameter in the URL (no push).
    func makeRequest(redirectURI: String) throws(LatchkeyError) -> Request {
        let (params, state, nonce, pkce) = authorizationParameters(redirectURI: redirectURI)
        let url = try authorizationURL(params)
        return Request(url: url, state: state, nonce: nonce, pkce: pkce, redirectURI: redirectURI)
    }

    /// Builds the authorization request for `redirectURI`, pushing it first (RFC 9126) when the
    /// configuration's `PARMode` says so for this provider: the URL then holds `client_id` and the
    /// `request_uri` the provider answered with, plus, for an OpenID request, the pushed
    /// `response_type`, `scope`, `redirect_uri` and `prompt` (`referenceParameters`).
    func prepareRequest(redirectURI: String) async throws(LatchkeyError) -> Request {
        guard try client.configuration.par.uses(client.metadata) else { return try makeRequest(redirectURI: redirectURI) }
        // The endpoint is checked before anything is pushed: a flow that cannot end is not begun.
        _ = try EndpointExchange.endpointURL(client.metadata.authorizationEndpoint, name: "authorization_endpoint")
        let (params, state, nonce, pkce) = authorizationParameters(redirectURI: redirectURI)
        let pushed = try await client.pushAuthorizationRequest(params)
        let received = time.now()
        let url = try authorizationURL(Self.referenceParameters(pushed: params, requestURI: pushed.requestURI))
        return Request(
            url: url, state: state, nonce: nonce, pkce: pkce, redirectURI: redirectURI,
            pushedExpiresAt: received.addingTimeInterval(Double(pushed.expiresIn)))
    }

    /// The authorization URL's query after a push: `client_id` and `request_uri`; for an OpenID
    /// request (`scope` holds `openid`) also `response_type` and `scope`, which OpenID Connect Core
    /// §6.2 asks for beside a request by reference, `redirect_uri`, and for offline access the
    /// `prompt` (§11 wants `consent` there). idpyoidc checks the URL's own parameters as a whole
    /// OpenID request before it reads the pushed one, so it refuses the URL without each of them;
    /// RFC 9101 §5 lets a client repeat them. They are copied from what was pushed, so they cannot differ.
    static func referenceParameters(pushed: [(String, String)], requestURI: String) -> [(String, String)] {
        func value(_ name: String) -> String? { pushed.first { $0.0 == name }?.1 }
        var query: [(String, String)] = [("client_id", value("client_id") ?? ""), ("request_uri", requestURI)]
        if let scope = value("scope"), scope.split(separator: " ").contains("openid"), let type = value("response_type") {
            query += [("response_type", type), ("scope", scope)]
            if let redirect = value("redirect_uri") { query.append(("redirect_uri", redirect)) }
            if scope.split(separator: " ").contains("offline_access"), let prompt = value("prompt") { query.append(("prompt", prompt)) }
        }
        return query
    }

    /// Every authorization parameter (RFC 6749 §4.1.1, OIDC `nonce`, RFC 7636 S256, RFC 9449
    /// `dpop_jkt`, `prompt=consent` for offline access, RFC 8707 `resource`, the configured
    /// extras), with fresh secrets.
    func authorizationParameters(redirectURI: String) -> (params: [(String, String)], state: String, nonce: String, pkce: PKCE) {
        let pkce = PKCE(random: random)
        let state = Base64URL.encode(random.bytes(16))
        let nonce = Base64URL.encode(random.bytes(16))
        var params: [(String, String)] = [
            ("response_type", "code"), ("client_id", client.configuration.clientID), ("redirect_uri", redirectURI)
        ]
        if !client.configuration.scopes.isEmpty { params.append(("scope", client.configuration.scopeString)) }
        params += [("state", state), ("nonce", nonce), ("code_challenge", pkce.challenge), ("code_challenge_method", "S256")]
        // RFC 9449 §10: binds the authorization code to the session's key.
        if let key = client.dpopKey { params.append(("dpop_jkt", key.thumbprint)) }
        // OpenID Connect Core §11: offline access is asked for with the person's consent (the
        // OpenID Foundation's test provider refuses it otherwise); a prompt the operator chose wins.
        if client.configuration.scopes.contains("offline_access"),
            !client.configuration.extraParameters.contains(where: { $0.name == "prompt" })
        {
            params.append(("prompt", "consent"))
        }
        params += client.authorizationRequestExtensions
        return (params, state, nonce, pkce)
    }

    func authorizationURL(_ params: [(String, String)]) throws(LatchkeyError) -> HTTPURL {
        let endpoint = try EndpointExchange.endpointURL(client.metadata.authorizationEndpoint, name: "authorization_endpoint")
        var text = endpoint.absoluteString
        text += (endpoint.query == nil ? "?" : "&") + FormURLEncoding.encode(params)
        guard let url = HTTPURL(string: text) else { throw .protocolViolation("cannot build the authorization URL") }
        return url
    }

    /// True when `redirect` carries this request's `state` (compared in constant time). A bare
    /// pasted code has no state to compare and is taken as the person's own paste.
    static func matchesState(_ redirect: AuthorizationRedirect, of request: Request) -> Bool {
        switch redirect {
        case .bareCode: return true
        case .parameters(let pairs):
            guard let state = pairs.first(where: { $0.0 == "state" })?.1 else { return false }
            return ConstantTime.equals(Array(state.utf8), Array(request.state.utf8))
        }
    }

    /// Checks the redirect against `request` and returns the code (RFC 6749 §4.1.2, RFC 9207 §2.4).
    /// `state` is checked first, also for error responses: whoever cannot show it cannot end the
    /// sign-in nor put their text in front of the person.
    func code(from redirect: AuthorizationRedirect, for request: Request) throws(LatchkeyError) -> String {
        guard Self.matchesState(redirect, of: request) else {
            throw .protocolViolation("the redirect's state does not match the request (possible CSRF)")
        }
        switch redirect {
        case .bareCode(let code):
            return code
        case .parameters(let pairs):
            func value(_ name: String) -> String? { pairs.first { $0.0 == name }?.1 }
            if let error = value("error") {
                let description = value("error_description")
                if error == "access_denied" { throw .denied(code: error, description: description) }
                if error == "invalid_request_uri", request.pushedExpiresAt != nil {
                    // RFC 9126 §4: the pushed request expired or was already used.
                    throw .expired(
                        reason: "the provider no longer accepts the pushed authorization request"
                            + (description.map { " (\($0))" } ?? ""), oauthCode: error)
                }
                throw .oauth(.server(code: error, description: description, status: 302), endpoint: .authorization)
            }
            if let iss = value("iss") {
                guard iss == client.metadata.issuer else { throw .issuerMismatch(expected: client.metadata.issuer, got: iss) }
            } else if client.metadata.authorizationResponseIssParameterSupported == true {
                throw .protocolViolation("the redirect lacks the iss parameter the provider promises (RFC 9207)")
            }
            guard let code = value("code"), !code.isEmpty else { throw .protocolViolation("the redirect has no code") }
            return code
        }
    }

    /// Runs the whole flow: report the URL, wait for the redirect, check it, exchange the code.
    func run(
        receiver: any RedirectReceiver, timeout: Double? = nil,
        events: LoginEventHandler = { _ in }
    ) async throws(LatchkeyError) -> (response: TokenResponse, nonce: String) {
        let request = try await prepareRequest(redirectURI: receiver.redirectURI)
        events(.authorizationURL(request.url))
        // A pushed request is only good until its expires_in: waiting longer cannot succeed.
        var wait = timeout
        var pushedLifetime: Double?
        if let expiresAt = request.pushedExpiresAt {
            let left = max(expiresAt.timeIntervalSince(time.now()), 0)
            if wait.map({ left < $0 }) ?? true {
                wait = left
                pushedLifetime = left
            }
        }
        let redirect: AuthorizationRedirect
        do {
            redirect = try await receiver.receive(timeout: wait) { Self.matchesState($0, of: request) }
        } catch .timedOut(let seconds) where pushedLifetime != nil {
            throw .expired(
                reason: "the pushed authorization request expired after \(LatchkeyError.seconds(seconds.rounded())) s,"
                    + " before the redirect came back")
        }
        let code = try code(from: redirect, for: request)
        let response = try await client.exchangeCode(code, redirectURI: request.redirectURI, verifier: request.pkce.verifier)
        return (response, request.nonce)
    }
}
