import LatchkeyCrypto
import LatchkeyHTTP

/// One session's credentials, as every request that carries them needs them, and the one loop that
/// sends such a request (openid-client's DPoP handle): the client's authentication, the DPoP key
/// (decoded once per process: `DPoPKeyCache`), the nonces servers handed out, and the mTLS identity
/// with the transports that present it. A `Session` makes it once and hands the same value to every
/// grant, refresh, revocation, PAR, device and CIBA request; nothing downstream asks which
/// authenticator it holds, it asks the binding.
struct SessionBinding: Sendable {
    /// How the client authenticates.
    let clientAuthentication: any RequestAuthenticator
    /// The session's proof key; nil for a Bearer session.
    let dpopKey: DPoPKey?
    /// The servers' nonces, shared with every other request of the session.
    let nonces: ServerNonces
    /// The client certificate presented on the endpoints that authenticate the client, if any: a
    /// refusal there is reported as the certificate's, and token answers are checked against its
    /// thumbprint.
    let certificate: TLSClientIdentity?
    /// The transports per role, presenting `certificate` where it applies.
    let transports: EndpointTransports
    let time: any TimeSource
    let random: any RandomSource
    /// Each request's overall deadline, in seconds.
    var timeout: Double = 30

    /// Makes a binding; without `certificate` the transports are used as they are.
    init(
        clientAuthentication: any RequestAuthenticator, dpopKey: DPoPKey? = nil, nonces: ServerNonces = ServerNonces(),
        certificate: TLSClientIdentity? = nil, transports: EndpointTransports, time: any TimeSource, random: any RandomSource
    ) {
        self.clientAuthentication = clientAuthentication
        self.dpopKey = dpopKey
        self.nonces = nonces
        self.certificate = certificate
        self.transports = transports
        self.time = time
        self.random = random
    }

    /// The same binding with `key` as its proof key.
    func proving(with key: DPoPKey?) -> SessionBinding {
        var copy = SessionBinding(
            clientAuthentication: clientAuthentication, dpopKey: key, nonces: nonces,
            certificate: certificate, transports: transports, time: time, random: random)
        copy.timeout = timeout
        return copy
    }

    /// The binding of a stored session: its DPoP key (from `keys`) and its remembered nonces, which
    /// join those heard in this process as older ones.
    func bound(to dpop: DPoPBinding?, keys: DPoPKeyCache) throws(LatchkeyError) -> SessionBinding {
        guard let dpop else { return proving(with: nil) }
        nonces.merge(dpop.nonces)
        return proving(with: try keys.key(for: dpop, random: random))
    }

    /// The same binding with the client's authentication bound to the provider `metadata`
    /// describes (a `private_key_jwt` assertion's `aud` and algorithm).
    func bound(to metadata: ProviderMetadata) -> SessionBinding {
        var copy = SessionBinding(
            clientAuthentication: clientAuthentication.bound(to: metadata), dpopKey: dpopKey,
            nonces: nonces, certificate: certificate, transports: transports, time: time, random: random)
        copy.timeout = timeout
        return copy
    }

    /// The same binding with each request's deadline cut to `seconds` (at least 1 s), so a stalled
    /// server cannot hold a flow past its own deadline.
    func bounded(to seconds: Double) -> SessionBinding {
        var copy = self
        copy.timeout = max(min(timeout, seconds), 1)
        return copy
    }

    /// The session's key with the nonces, which makes every proof; nil for a Bearer session.
    var dpop: DPoPHandle? { dpopKey.map { DPoPHandle(key: $0, nonces: nonces, time: time, random: random) } }

    /// Sends `request` under the transient rule for its role (`TransientFailure`), each attempt
    /// through `attempt(_:)`; no pause ends past `deadline`.
    func send(_ request: ProviderRequest, until deadline: Timestamp? = nil) async throws(LatchkeyError) -> HTTPResponse {
        try await TransientFailure.retrying(request.role, time: time, until: deadline) { () throws(LatchkeyError) in
            try await attempt(request)
        }
    }

    /// Authenticates and sends `request` once, and once more when `RetryRule` says so: the answer
    /// brought a nonce this binding did not hold (`ServerNonces.remember`), or the client's own
    /// authenticator asked. A DPoP-bound request that meets a second nonce error throws
    /// `nonceRequestedTwice`. Transport failures become `LatchkeyError` (`EndpointExchange`).
    func attempt(_ request: ProviderRequest) async throws(LatchkeyError) -> HTTPResponse {
        let exchange = EndpointExchange(transport: transports.transport(for: request.role), timeout: timeout)
        let proof = DPoPHandle.applies(to: request.role) ? dpop : nil
        return try await RetryRule.sending(
            request.role,
            attempt: { _ throws(LatchkeyError) -> RetryRule.Answer in
                let context = RequestContext(now: time.now(), random: random, nonces: nonces)
                var prepared = request
                try clientAuthentication.authenticate(&prepared, context: context)
                try proof?.prove(&prepared, at: context.now)
                let response = try await exchange.send(prepared.httpRequest(timeout: timeout))
                if let certificate, request.role.authenticatesClient,
                    let refusal = ClientCertificateProblem.refusal(response, endpoint: request.role, subject: certificate.subject)
                {
                    throw .clientCertificate(refusal)
                }
                // Both see the response: the proof remembers a nonce even when the client's authenticator asks.
                let asked = clientAuthentication.wantsRetry(after: response, to: prepared, context: context)
                let newNonce = proof?.takesUpNonce(after: response, to: prepared) ?? false
                return RetryRule.Answer(response: response, newNonce: asked || newNonce, bound: proof != nil)
            }, renew: { () throws(LatchkeyError) in }, refusal: { $0 })
    }
}
