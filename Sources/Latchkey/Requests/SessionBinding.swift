import LatchkeyCrypto
import LatchkeyHTTP

/// One signed-in session's credentials, as every request that carries them needs them: the
/// client's authentication, the DPoP key (decoded once per process: `DPoPKeyCache`), the nonces
/// servers handed out, and the mTLS identity with the transports that present it. `pipeline` is
/// the one request pipeline for all of them: token endpoint, revocation, PAR, device, CIBA; resource
/// requests carry the same key and nonces through `Session`'s `DPoPProofSource`.
struct SessionBinding: Sendable {
    /// How the client authenticates.
    let clientAuthentication: any RequestAuthenticator
    /// The session's proof key; nil for a Bearer session.
    let dpopKey: DPoPKey?
    /// The servers' nonces, shared with every other request of the session.
    let nonces: ServerNonces
    /// The client certificate presented on the endpoints that authenticate the client, if any.
    let certificate: TLSClientIdentity?
    /// The transports per role, presenting `certificate` where it applies.
    let transports: EndpointTransports
    let time: any TimeSource
    let random: any RandomSource

    /// The same binding with `key` as its proof key.
    func proving(with key: DPoPKey?) -> SessionBinding {
        SessionBinding(clientAuthentication: clientAuthentication, dpopKey: key, nonces: nonces, certificate: certificate,
                       transports: transports, time: time, random: random)
    }

    /// The binding of a stored session: its DPoP key (from `keys`) and its remembered nonces, which
    /// join those heard in this process as older ones.
    func bound(to dpop: DPoPBinding?, keys: DPoPKeyCache) throws(LatchkeyError) -> SessionBinding {
        guard let dpop else { return proving(with: nil) }
        nonces.merge(dpop.nonces)
        return proving(with: try keys.key(for: dpop, random: random))
    }

    /// The pipeline that sends this session's requests.
    var pipeline: ProviderPipeline {
        let proofs: [any RequestAuthenticator] = dpopKey.map { [DPoPAuthenticator(key: $0)] } ?? []
        var pipeline = ProviderPipeline(transports: transports, authenticators: [clientAuthentication] + proofs, time: time,
                                        random: random, nonces: nonces)
        pipeline.presentedCertificate = certificate
        return pipeline
    }
}
