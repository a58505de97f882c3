import Testing

/// The test IdP as started by Tests/run-all.sh (Tests/Harness/idp/start-idp.sh writes these
/// `LATCHKEY_IT_*` variables to `<state>/env.sh`).
public struct IntegrationEnvironment: Sendable {
    /// Plain-HTTP issuer of the normal plugin, `http://127.0.0.1:PORT/api/oidc`.
    public let issuer: String
    /// Plain-HTTP issuer whose device codes expire after ``shortDeviceTTL`` seconds.
    public let issuerDeviceExpiry: String
    /// Plain-HTTP issuer whose access tokens live ``shortAccessTokenTTL`` seconds.
    public let issuerShortToken: String
    /// TLS issuer, `https://localhost:PORT/api/oidc`, behind stunnel.
    public let issuerTLS: String
    /// PEM file of the throwaway CA that signed the `localhost` certificate.
    public let caFile: String
    /// JSON-lines log of every request the plain instance received (counting proxy).
    public let proxyLog: String
    /// JSON-lines log of every request the TLS instance received.
    public let proxyLogTLS: String
    /// Public device clients whose ID tokens are signed RS256, PS256 and ES256.
    public let clientRS256: String, clientPS256: String, clientES256: String
    /// Public code + PKCE client and its registered redirect URI (exact match at Glewlwyd).
    public let clientCode: String, redirectURI: String
    /// Confidential device client and the file holding its secret (mode 0600).
    public let clientConfidential: String, clientSecretFile: String
    /// Scope string the tests request (includes `glwd_revoke`, which revocation needs).
    public let scope: String
    /// Device-flow polling interval configured on the server, in seconds.
    public let deviceInterval: Int
    /// Device-code and access-token lifetimes of the short plugin, in seconds.
    public let shortDeviceTTL: Int, shortAccessTokenTTL: Int
    /// Python interpreter and the approve/browser scripts.
    public let python: String, approveScript: String, browserScript: String

    /// Reads the variables; any missing one fails (CI) or skips (local) the calling test.
    public static func load(_ env: [String: String] = HostEnvironment.current) throws -> IntegrationEnvironment {
        func v(_ name: String) throws -> String { try Requirement.environmentValue("LATCHKEY_IT_" + name, environment: env) }
        return IntegrationEnvironment(
            issuer: try v("ISSUER"), issuerDeviceExpiry: try v("ISSUER_DEVICE_EXPIRY"),
            issuerShortToken: try v("ISSUER_SHORT_TOKEN"), issuerTLS: try v("ISSUER_TLS"), caFile: try v("CA_FILE"),
            proxyLog: try v("PROXY_LOG"), proxyLogTLS: try v("PROXY_LOG_TLS"),
            clientRS256: try v("CLIENT_RS256"), clientPS256: try v("CLIENT_PS256"), clientES256: try v("CLIENT_ES256"),
            clientCode: try v("CLIENT_CODE"), redirectURI: try v("REDIRECT_URI"),
            clientConfidential: try v("CLIENT_CONFIDENTIAL"), clientSecretFile: try v("CLIENT_SECRET_FILE"),
            scope: try v("SCOPE"), deviceInterval: Int(try v("DEVICE_INTERVAL")) ?? 1,
            shortDeviceTTL: Int(try v("SHORT_DEVICE_TTL")) ?? 4, shortAccessTokenTTL: Int(try v("SHORT_AT_TTL")) ?? 12,
            python: try v("PYTHON"), approveScript: try v("APPROVE"), browserScript: try v("BROWSER"))
    }

    /// Approves `userCode` at `issuer` as a person would (Tests/Harness/idp/approve.py).
    public func approve(userCode: String, issuer: String) throws -> ProcessResult {
        try ProcessRunner.run(
            python, [approveScript, userCode, "--issuer", issuer, "--ca-file", caFile],
            timeout: .seconds(30))
    }

    /// Plays the browser for an authorization URL; delivers the redirect to the loopback listener.
    public func completeBrowserLogin(authorizationURL: String) throws -> ProcessResult {
        try ProcessRunner.run(python, [browserScript, authorizationURL, "--ca-file", caFile], timeout: .seconds(30))
    }
}
