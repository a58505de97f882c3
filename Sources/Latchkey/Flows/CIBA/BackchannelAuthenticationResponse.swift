import LatchkeyHTTP
import LatchkeyJOSE

/// The answer to a CIBA authentication request (OpenID CIBA Core §7.3): the id to poll with, how
/// long the request stays open, and the poll interval.
public struct BackchannelAuthenticationResponse: Sendable, Equatable {
    /// The `auth_req_id` polled with, and echoed in the ID token (§7.4). Secret-ish: never logged.
    public var authRequestID: String
    /// Seconds until the request expires (clamped like the device code's lifetime).
    public var expiresIn: Int64
    /// Minimum seconds between polls (5 when missing, 0 or unparsable, §7.3).
    public var interval: Int64

    /// Makes a value.
    public init(authRequestID: String, expiresIn: Int64, interval: Int64 = DeviceAuthorizationResponse.defaultInterval) {
        self.authRequestID = authRequestID
        self.expiresIn = expiresIn
        self.interval = interval
    }

    /// Parses the endpoint's answer. An `error` member decides whatever the status (§13):
    /// `access_denied` is a denial, anything else (`unknown_user_id`, `invalid_request`,
    /// `invalid_binding_message`, `invalid_client`, …) a refusal of the request.
    public static func parse(_ response: HTTPResponse) throws(LatchkeyError) -> BackchannelAuthenticationResponse {
        let object = ResponseBody.object(response)
        if let object, let code = object.string("error"), !code.isEmpty {
            let description = object.string("error_description")
            if code == "access_denied" { throw .denied(code: code, description: description) }
            throw .oauth(.server(code: code, description: description, status: response.status), endpoint: .backchannelAuthentication)
        }
        guard (200..<300).contains(response.status) else {
            throw .oauth(.unexpectedStatus(response.status), endpoint: .backchannelAuthentication)
        }
        guard let object else { throw .protocolViolation("backchannel authentication response is not a JSON object") }
        guard let id = object.string("auth_req_id"), !id.isEmpty else {
            throw .protocolViolation("backchannel authentication response has no auth_req_id")
        }
        guard var expiresIn = object.lenientInt("expires_in"), expiresIn > 0 else {
            throw .protocolViolation("backchannel authentication response has no positive expires_in")
        }
        expiresIn = min(expiresIn, DeviceAuthorizationResponse.maxExpiresIn)
        var interval = object.lenientInt("interval") ?? DeviceAuthorizationResponse.defaultInterval
        if interval <= 0 { interval = DeviceAuthorizationResponse.defaultInterval }
        interval = min(interval, DeviceAuthorizationResponse.maxInterval)
        return BackchannelAuthenticationResponse(authRequestID: id, expiresIn: expiresIn, interval: interval)
    }
}
