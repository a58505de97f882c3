import LatchkeyCrypto
import LatchkeyHTTP

/// Sends `ProviderRequest`s: runs every authenticator over the request, sends it on the role's
/// transport, and sends it once more when an authenticator asks (a server nonce). Transport failures
/// become `LatchkeyError` (`EndpointExchange`).
struct ProviderPipeline: Sendable {
    /// Transports per endpoint role.
    public var transports: EndpointTransports
    /// Applied in order to every request; each decides by role whether it applies.
    public var authenticators: [any RequestAuthenticator]
    /// The clock handed to authenticators.
    public var time: any TimeSource
    /// The randomness handed to authenticators.
    public var random: any RandomSource
    /// Nonces servers handed out, shared by every request of this pipeline.
    public var nonces: ServerNonces
    /// Each request's overall deadline, in seconds.
    public var timeout: Double = 30
    /// The client certificate the transports present on the roles that authenticate the client
    /// (`MutualTLS`), if any: a refusal there is reported as the certificate's, and token answers
    /// are checked against its thumbprint.
    public var presentedCertificate: TLSClientIdentity?

    /// Makes a pipeline.
    public init(transports: EndpointTransports, authenticators: [any RequestAuthenticator], time: any TimeSource,
                random: any RandomSource, nonces: ServerNonces = ServerNonces()) {
        self.transports = transports
        self.authenticators = authenticators
        self.time = time
        self.random = random
        self.nonces = nonces
    }

    /// Authenticates and sends `request`; sends it once more when `RetryRule` says so (a server
    /// nonce), and throws `nonceRequestedTwice` when a DPoP-bound request meets a second nonce error.
    public func send(_ request: ProviderRequest) async throws(LatchkeyError) -> HTTPResponse {
        let exchange = EndpointExchange(transport: transports.transport(for: request.role), timeout: timeout)
        let bound = DPoPAuthenticator.applies(to: request.role) && authenticators.contains { $0 is DPoPAuthenticator }
        var rule = RetryRule(role: request.role)
        while true {
            let context = RequestContext(now: time.now(), random: random, nonces: nonces)
            var prepared = request
            for authenticator in authenticators { try authenticator.authenticate(&prepared, context: context) }
            let response = try await exchange.send(prepared.httpRequest(timeout: timeout))
            if let certificate = presentedCertificate, request.role.authenticatesClient,
               let refusal = ClientCertificateProblem.refusal(response, endpoint: request.role, subject: certificate.subject) {
                throw .clientCertificate(refusal)
            }
            // Every authenticator sees the response (one may remember a nonce even when another asks).
            var asked = false
            for authenticator in authenticators where authenticator.wantsRetry(after: response, to: prepared, context: context) {
                asked = true
            }
            guard try rule.next(after: response, newNonce: asked, bound: bound) != nil else { return response }
        }
    }
}
