import LatchkeyHTTP
import LatchkeyJOSE

/// How device-grant error codes end the flow (RFC 8628 §3.5 plus provider codes from providers.md).
enum DeviceErrorMapping {
    static func error(for e: OAuthError, endpoint: EndpointRole) -> LatchkeyError {
        guard case .server(let code, let description, _) = e else {
            if case .malformedResponse(let r) = e { return .protocolViolation(r) }
            return .oauth(e, endpoint: endpoint)
        }
        switch code {
        case "access_denied", "authorization_declined":
            return .denied(code: code, description: description)
        case "expired_token":
            return .expired(reason: description ?? "the device code expired before it was approved", oauthCode: code)
        case "invalid_grant":
            // Auth0 answers `expired_token` once and then `invalid_grant`: the code is no longer usable,
            // so the wait ends as expired (exit 5), but reported with the code the server sent (cli.md).
            return .expired(
                reason: "the device code is no longer valid (invalid_grant" + (description.map { ": \($0)" } ?? "") + ")",
                oauthCode: code)
        default:
            // invalid_client, unauthorized_client, device_flow_disabled, device_not_found,
            // bad_verification_code, incorrect_device_code, invalid_request, …: the client is refused.
            return .oauth(e, endpoint: endpoint)
        }
    }
}
