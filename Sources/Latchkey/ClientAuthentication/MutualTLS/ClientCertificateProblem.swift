import LatchkeyHTTP

/// Why mutual-TLS client authentication (RFC 8705) failed. Data only; programs word it themselves.
public enum ClientCertificateProblem: Sendable, Equatable, CustomStringConvertible {
    /// The local certificate or key cannot be used (unreadable, expired, not yet valid, key not the
    /// certificate's, not for client authentication). Found before anything is sent.
    case unusable(ClientIdentityError)
    /// The provider completed the handshake and then refused the client at `endpoint`: an HTTP
    /// 401/403 with an empty body, or an `invalid_client` / `unauthorized_client` error, while the
    /// certificate whose subject is `subject` was presented. Glewlwyd answers so for a certificate
    /// from a CA it does not trust, an expired one, and one whose subject is not the client's.
    case refused(endpoint: EndpointRole, status: Int, oauthCode: String?, subject: String)

    /// True when the fault is in the local files (not the server's answer).
    public var isLocal: Bool {
        if case .unusable = self { return true }
        return false
    }

    /// One line.
    public var description: String {
        switch self {
        case .unusable(let e): return e.description
        case .refused(let endpoint, let status, let code, let subject):
            let answer = "HTTP \(status)" + (code.map { " \($0)" } ?? " with an empty body")
            return "the \(endpoint.rawValue) endpoint refused the client certificate \"\(subject)\" (\(answer)):"
                + " the provider does not trust its CA, it has expired, or it is not registered for this client"
        }
    }

    /// The refusal `response` is, when the certificate with `subject` was presented to `endpoint`.
    static func refusal(_ response: HTTPResponse, endpoint: EndpointRole, subject: String) -> ClientCertificateProblem? {
        guard response.status == 401 || response.status == 403 else { return nil }
        let blank = CharacterClass.isBlank(response.body)
        if blank { return .refused(endpoint: endpoint, status: response.status, oauthCode: nil, subject: subject) }
        guard case .error(.server(let code, _, _)) = TokenResponse.parse(response),
            code == "invalid_client" || code == "unauthorized_client"
        else { return nil }
        return .refused(endpoint: endpoint, status: response.status, oauthCode: code, subject: subject)
    }
}
