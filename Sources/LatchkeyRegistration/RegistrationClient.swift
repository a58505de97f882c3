import Latchkey
import LatchkeyCrypto
import LatchkeyHTTP
import LatchkeyJOSE

/// RFC 7591 registration and RFC 7592 management of one client, over any `HTTPTransport`, in
/// one provider's `RegistrationDialect`. No redirects are followed (a bearer token must not be
/// carried elsewhere), and a `registration_client_uri` off the issuer's origin is refused before
/// the registration access token is ever sent to it.
public struct RegistrationClient: Sendable {
    /// The issuer the registration belongs to; its origin bounds `registration_client_uri`.
    public let issuer: String
    /// How the provider spells the protocol.
    public let dialect: RegistrationDialect
    private let exchange: EndpointExchange
    private let time: any TimeSource

    /// A client for `issuer`'s registration endpoints over `transport`.
    public init(issuer: String, dialect: RegistrationDialect, transport: any HTTPTransport, timeout: Double = 30) {
        self.init(issuer: issuer, dialect: dialect, transport: transport, timeout: timeout, time: SystemTimeSource())
    }

    /// As above, with the clock the transient-failure pauses sleep on (tests).
    public init(
        issuer: String, dialect: RegistrationDialect, transport: any HTTPTransport, timeout: Double = 30,
        time: any TimeSource
    ) {
        self.issuer = issuer
        self.dialect = dialect
        self.time = time
        exchange = EndpointExchange(transport: transport, timeout: timeout)
    }

    /// The `registration_endpoint` of a provider's discovery document.
    package static func registrationEndpoint(_ provider: DiscoveredProvider) throws(RegistrationError) -> String {
        guard let endpoint = provider.document["registration_endpoint"]?.stringValue, !endpoint.isEmpty else {
            throw .noRegistrationEndpoint(issuer: provider.metadata.issuer)
        }
        return endpoint
    }

    /// RFC 7591 §3.1: registers `metadata` at `endpoint`, with the provisioning (initial access)
    /// token as a Bearer credential when given. Checks the answer: a `client_id`, a management URI
    /// on the issuer's origin, and the `jwks` sent echoed unchanged when echoed at all.
    public func create(_ metadata: ClientMetadata, endpoint: String, initialAccessToken: SecretBytes?) async throws(RegistrationError)
        -> ClientRegistration
    {
        let url = try Self.url(endpoint)
        let response = try await send("POST", url, bearer: initialAccessToken.map(Self.text), body: metadata.json(in: dialect))
        if response.status == 401 || response.status == 403 { throw .provisioningTokenRefused(status: response.status) }
        try Self.refusal(response)
        guard dialect.createStatuses.contains(response.status) else {
            throw .unexpectedStatus(operation: .create, status: response.status)
        }
        let registration = try ClientRegistration(json: try Self.object(response, .create), dialect: dialect, operation: .create)
        if let uri = registration.registrationClientURI { try checkOrigin(uri) }
        try Self.checkKeys(sent: metadata.jwks, echoed: registration.metadata.jwks)
        return registration
    }

    /// RFC 7592 §2.1: the client's current registration.
    public func read(_ management: RegistrationManagement) async throws(RegistrationError) -> ClientRegistration {
        let response = try await manage("GET", management, body: nil)
        try expect(response, [200], .read)
        var registration = try ClientRegistration(json: try Self.object(response, .read), dialect: dialect, operation: .read)
        // RFC 7592 §3: the answer may leave the management credentials out; they have not changed.
        if registration.registrationAccessToken == nil { registration.registrationAccessToken = management.accessToken }
        if registration.registrationClientURI == nil { registration.registrationClientURI = management.uri }
        return registration
    }

    /// RFC 7592 §2.2: replaces the registration with `metadata`, repeated whole with `client_id`
    /// (a member left out is reset). Returns the registration as the provider then holds it.
    public func update(_ metadata: ClientMetadata, clientID: String, management: RegistrationManagement) async throws(RegistrationError)
        -> ClientRegistration
    {
        var body = metadata.json(in: dialect)
        body["client_id"] = .string(clientID)
        let response = try await manage("PUT", management, body: body)
        try expect(response, [200], .update)
        var registration = try ClientRegistration(json: try Self.object(response, .update), dialect: dialect, operation: .update)
        guard registration.clientID == clientID else {
            throw .malformedAnswer(operation: .update, reason: "the answer names another client_id")
        }
        try Self.checkKeys(sent: metadata.jwks, echoed: registration.metadata.jwks)
        if registration.registrationAccessToken == nil { registration.registrationAccessToken = management.accessToken }
        if let uri = registration.registrationClientURI {
            try checkOrigin(uri)
        } else {
            registration.registrationClientURI = management.uri
        }
        return registration
    }

    /// RFC 7592 §2.3: deletes the registration; returns only when the provider confirmed it.
    public func delete(_ management: RegistrationManagement) async throws(RegistrationError) {
        let response = try await manage("DELETE", management, body: nil)
        try expect(response, dialect.deleteStatuses, .delete)
    }

    /// Refuses a management URI on another origin than the issuer's.
    public func checkOrigin(_ uri: String) throws(RegistrationError) {
        guard let target = HTTPURL(string: uri), let home = HTTPURL(string: issuer), target.origin == home.origin,
            target.query == nil, target.fragment == nil
        else {
            throw .foreignManagementURI(uri: uri, issuer: issuer)
        }
    }

    // MARK: - Exchanges

    private func manage(_ method: String, _ management: RegistrationManagement, body: JSONObject?) async throws(RegistrationError)
        -> HTTPResponse
    {
        try checkOrigin(management.uri)
        let response = try await send(method, try Self.url(management.uri), bearer: management.accessToken, body: body)
        if response.status == 401 || response.status == 403 { throw .managementRefused(status: response.status) }
        return response
    }

    private func send(_ method: String, _ url: HTTPURL, bearer: String?, body: JSONObject?) async throws(RegistrationError) -> HTTPResponse
    {
        var headers: [(name: String, value: String)] = [("Accept", "application/json")]
        if let bearer { headers.append(("Authorization", "Bearer " + bearer)) }
        var bytes: [UInt8] = []
        if let body {
            headers.append(("Content-Type", "application/json"))
            bytes = Array(JSONValue.object(body).jsonText.utf8)
        }
        let request = HTTPRequest(method: method, url: url, headers: headers, body: bytes, maxRedirects: 0, timeout: exchange.timeout)
        // The one transient rule (`TransientFailure`): a create only when it cannot have arrived (a
        // second client would be left behind), PUT and DELETE after any transient failure (they are
        // idempotent), and the RFC 7592 GET never: it is what confirms a state, so its answer stands.
        let repeating: TransientFailure.Repeat
        switch method {
        case "GET": repeating = .never
        case "POST": repeating = .whenNotActedOn
        default: repeating = .afterAnyTransientFailure
        }
        let exchange = self.exchange
        do throws(LatchkeyError) {
            return try await TransientFailure.retrying(.registration, repeating: repeating, time: time) {
                () async throws(LatchkeyError) -> HTTPResponse in try await exchange.send(request)
            }
        } catch {
            throw .latchkey(error)
        }
    }

    private func expect(_ response: HTTPResponse, _ statuses: [Int], _ operation: RegistrationOperation) throws(RegistrationError) {
        try Self.refusal(response)
        guard statuses.contains(response.status) else {
            throw .unexpectedStatus(operation: operation, status: response.status)
        }
    }

    /// RFC 7591 §3.2.2: a 400 with an `error` code becomes `.refused`, its text sanitised.
    private static func refusal(_ response: HTTPResponse) throws(RegistrationError) {
        guard response.status == 400 else { return }
        let object = ResponseBody.object(response)
        let code = object?["error"]?.stringValue.map { sanitised($0, limit: 64) } ?? "invalid_request"
        let description = object?["error_description"]?.stringValue.map { sanitised($0, limit: 200) }
        throw .refused(code: code.isEmpty ? "invalid_request" : code, description: description)
    }

    private static func object(_ response: HTTPResponse, _ operation: RegistrationOperation) throws(RegistrationError) -> JSONObject {
        guard !response.body.isEmpty else { throw .malformedAnswer(operation: operation, reason: "empty body") }
        guard let object = try? JSONParser().parseObject(response.body) else {
            throw .malformedAnswer(operation: operation, reason: "not a JSON object")
        }
        return object
    }

    /// When the answer echoes `jwks`, it must hold the keys sent, by RFC 7638 thumbprint.
    static func checkKeys(sent: JSONObject?, echoed: JSONObject?) throws(RegistrationError) {
        guard let sent, let echoed else { return }
        let a = thumbprints(sent), b = thumbprints(echoed)
        guard let a, let b, a == b else { throw .keySetChanged(sentThumbprints: a ?? [], echoedThumbprints: b ?? []) }
    }

    private static func thumbprints(_ set: JSONObject) -> [String]? {
        guard let keys = set["keys"]?.arrayValue else { return nil }
        var out: [String] = []
        for key in keys {
            guard let object = key.objectValue, let jwk = try? JWK(json: object) else { return nil }
            out.append(jwk.thumbprint())
        }
        return out.sorted()
    }

    private static func url(_ string: String) throws(RegistrationError) -> HTTPURL {
        guard let url = HTTPURL(string: string) else { throw .unusableURL(string) }
        return url
    }

    private static func text(_ secret: SecretBytes) -> String {
        secret.withUnsafeBytes { String(decoding: $0, as: UTF8.self) }
    }

    /// Printable ASCII only (RFC 6749 §5.2's character set for `error` and `error_description`).
    static func sanitised(_ text: String, limit: Int) -> String {
        String(
            String.UnicodeScalarView(text.unicodeScalars.filter { $0.isASCII && CharacterClass.isPrintable(UInt8($0.value)) }.prefix(limit))
        )
    }
}

/// The RFC 7592 credentials of one registration: where it lives and the token that manages it.
public struct RegistrationManagement: Sendable, Equatable {
    /// `registration_client_uri`.
    public var uri: String
    /// `registration_access_token`.
    public var accessToken: String

    /// Makes credentials.
    public init(uri: String, accessToken: String) {
        self.uri = uri
        self.accessToken = accessToken
    }
}
