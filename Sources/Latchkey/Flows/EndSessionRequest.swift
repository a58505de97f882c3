import LatchkeyCrypto
import LatchkeyHTTP
import LatchkeyJOSE

/// An OpenID Connect RP-Initiated Logout 1.0 request (§2): the URL a person opens, on any device,
/// to end their session at the provider. The ID token goes in only when asked for, since the URL
/// is shown on screens and in QR codes.
package struct EndSessionRequest: Sendable, Equatable {
    /// The URL to open: `end_session_endpoint` with the parameters added.
    package let url: HTTPURL
    /// The random `state` sent (§2: echoed on the redirect to `post_logout_redirect_uri`).
    package let state: String

    /// Builds the request from the provider's `end_session_endpoint`. Throws `.protocolViolation`
    /// when the endpoint is not an https (or loopback http) URL.
    package init(
        endpoint: String, clientID: String, postLogoutRedirectURI: String?, idTokenHint: String?,
        random: any RandomSource
    ) throws(LatchkeyError) {
        let base = try EndpointExchange.endpointURL(endpoint, name: "end_session_endpoint")
        let state = Base64URL.encode(random.bytes(16))
        var params: [(String, String)] = []
        if let idTokenHint { params.append(("id_token_hint", idTokenHint)) }
        params.append(("client_id", clientID))
        if let postLogoutRedirectURI { params.append(("post_logout_redirect_uri", postLogoutRedirectURI)) }
        params.append(("state", state))
        self.url = base.appendingQuery(params)
        self.state = state
    }
}
