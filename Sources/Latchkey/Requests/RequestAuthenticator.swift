import LatchkeyCrypto
import LatchkeyHTTP

/// Something that adds credentials to a `ProviderRequest` before it is sent: the client's own
/// authentication (`none`, `client_secret_basic`, `client_secret_post`, `private_key_jwt` and
/// mTLS) or a proof of possession (DPoP). The pipeline runs every authenticator on every request;
/// each decides from `request.role` whether it applies.
public protocol RequestAuthenticator: Sendable {
    /// Adds what this authenticator contributes. Called again, with a fresh context, for a retry.
    func authenticate(_ request: inout ProviderRequest, context: RequestContext) throws(LatchkeyError)

    /// Looks at the response to `request`; true asks the pipeline to send it once more (re-authenticated).
    /// This is how a server nonce (`use_dpop_nonce`, RFC 9449 §8) is taken up. At most one retry is made
    /// per request, whatever the authenticators answer.
    func wantsRetry(after response: HTTPResponse, to request: ProviderRequest, context: RequestContext) -> Bool

    /// The same authenticator for the provider `metadata` describes, for one that needs its issuer
    /// or what it advertises (a `private_key_jwt` assertion's `aud` and algorithm). Sign-in, refresh
    /// and logout each bind it to the metadata they work with (discovered, or stored in the token file).
    func bound(to metadata: ProviderMetadata) -> any RequestAuthenticator

    /// Why `response` from `endpoint` refuses this authenticator's own credentials, when it says
    /// so in a way the program can help with (a `private_key_jwt` audience the provider does not
    /// take); nil otherwise, and the answer is read as any other.
    func refusal(of response: HTTPResponse, endpoint: EndpointRole) -> ClientAuthenticationRefusal?

    /// Refuses, before a sign-in sends anything, credentials this authenticator can already tell
    /// are unusable at `now` (a ready-made assertion that has expired), so the first request is
    /// not the one that finds out.
    func checkUsable(at now: Timestamp) throws(LatchkeyError)
}

extension RequestAuthenticator {
    /// Most authenticators never ask for a retry.
    public func wantsRetry(after response: HTTPResponse, to request: ProviderRequest, context: RequestContext) -> Bool {
        false
    }

    /// Most authenticators do not depend on the provider.
    public func bound(to metadata: ProviderMetadata) -> any RequestAuthenticator { self }

    /// Most authenticators leave a refusal to the response's own error.
    public func refusal(of response: HTTPResponse, endpoint: EndpointRole) -> ClientAuthenticationRefusal? { nil }

    /// Most authenticators have nothing to read ahead.
    public func checkUsable(at now: Timestamp) throws(LatchkeyError) {}
}

/// What an authenticator may use: the time, randomness, and the nonces servers have handed out.
public struct RequestContext: Sendable {
    /// Now, from the injected clock.
    public let now: Timestamp
    /// The injected random source (for `jti` values).
    public let random: any RandomSource
    /// Nonces remembered per server.
    public let nonces: ServerNonces

    /// Makes a context.
    public init(now: Timestamp, random: any RandomSource, nonces: ServerNonces) {
        self.now = now
        self.random = random
        self.nonces = nonces
    }

    /// The nonce last given by the server that `url` points at, if any.
    public func serverNonce(for url: HTTPURL) -> String? { nonces.nonce(for: url) }
}
