import LatchkeyHTTP

/// Progress of a sign-in, for the CLI to render (human text or JSON Lines) or a library user to show.
public enum LoginEvent: Sendable {
    /// Device flow: show the URI and user code (and a QR code of the complete URI); valid until `expiresAt`.
    case verification(DeviceAuthorizationResponse, expiresAt: Timestamp)
    /// Code flow: open or print this URL.
    case authorizationURL(HTTPURL)
    /// CIBA: the provider is asking the person `request.loginHint` names, on their own device, to
    /// approve (showing `request.bindingMessage`); the request is open until `expiresAt`.
    case backchannel(BackchannelAuthenticationRequest, BackchannelAuthenticationResponse, expiresAt: Timestamp)
    /// Device flow: still waiting for the user; the next poll is in `nextPollIn` seconds.
    case pending(nextPollIn: Int)
    /// Device flow: the server asked to slow down; polls are now `interval` seconds apart.
    case slowDown(interval: Int)
    /// Device flow: a network error or 5xx; retrying in `nextPollIn` seconds (the reason is one line).
    case retrying(reason: String, nextPollIn: Int)
    /// A public client signed in with `offline_access` without DPoP: its refresh token is a bearer
    /// secret on this device. Sent only after the session is saved, just before `.authorized`, so
    /// nothing is said about a sign-in that did not happen. `dpopOffered`: the provider's metadata
    /// offers DPoP with ES256, so `DPoPMode.auto` would bind the tokens there.
    case offlineAccessWithoutDPoP(dpopOffered: Bool)
    /// The provider's clock (its answer's `Date`) is `offsetSeconds` ahead of the local one
    /// (negative: behind), more than the leeway: ID-token times are judged by the provider's
    /// clock (up to `ClockSkew.maxShift`). Sent before the ID token is verified.
    case clockSkew(offsetSeconds: Int64)
    /// Signed in and saved; `tokenBinding` says whether the tokens are bound to the session's key.
    case authorized(
        issuer: String, subject: String?, scope: String?, expiresAt: Timestamp?, idTokenVerified: Bool,
        tokenBinding: TokenBinding)
}

/// Where events go. Called synchronously from the flow; must not block.
public typealias LoginEventHandler = @Sendable (LoginEvent) -> Void
