import LatchkeyHTTP
import LatchkeyJOSE

/// The answer to a pushed authorization request (RFC 9126 §2.2), parsed strictly: the flow puts
/// only `client_id` and this `request_uri` in the authorization URL, so a missing or malformed one
/// is the provider breaking the protocol, not something to guess around.
struct PushedAuthorizationResponse: Sendable, Equatable {
    /// The reference to the pushed request, used once at the authorization endpoint.
    let requestURI: String
    /// Seconds the reference stays valid, from when the answer arrived.
    let expiresIn: Int64

    /// Longest lifetime taken from a server (one hour); a longer one is clamped.
    static let maxExpiresIn: Int64 = 3600

    /// Makes a value.
    init(requestURI: String, expiresIn: Int64) {
        self.requestURI = requestURI
        self.expiresIn = expiresIn
    }

    /// Parses the endpoint's answer: `201 Created` with a JSON object holding a non-empty
    /// `request_uri` string and a positive integer `expires_in` (both REQUIRED, §2.2). An `error`
    /// member (§2.3) becomes `.oauth(_, endpoint: .pushedAuthorization)`; any other status is
    /// `.oauth(.unexpectedStatus)`; everything else wrong is `.protocolViolation`.
    static func parse(_ response: HTTPResponse) throws(LatchkeyError) -> PushedAuthorizationResponse {
        let object = ResponseBody.object(response)
        if let object, let code = object.string("error"), !code.isEmpty {
            throw .oauth(
                .server(code: code, description: object.string("error_description"), status: response.status),
                endpoint: .pushedAuthorization)
        }
        guard response.status == 201 else {
            throw .oauth(.unexpectedStatus(response.status), endpoint: .pushedAuthorization)
        }
        guard let object else { throw .protocolViolation("the pushed authorization response is not a JSON object") }
        guard case .string(let uri)? = object["request_uri"] else {
            throw .protocolViolation("the pushed authorization response has no request_uri string")
        }
        guard !uri.isEmpty, CharacterClass.isVisibleASCII(uri) else {
            throw .protocolViolation("the pushed authorization response's request_uri is empty or not printable ASCII")
        }
        guard case .number? = object["expires_in"], let seconds = object.lenientInt("expires_in"), seconds > 0 else {
            throw .protocolViolation("the pushed authorization response has no positive integer expires_in")
        }
        return PushedAuthorizationResponse(requestURI: uri, expiresIn: min(seconds, maxExpiresIn))
    }
}
