import LatchkeyHTTP

/// One request to the provider (or a resource) before it is sent: a plain value that each
/// `RequestAuthenticator` may read and change — add a form parameter, a header, a proof.
public struct ProviderRequest: Sendable {
    /// What the endpoint is for.
    public var role: EndpointRole
    /// `POST` for forms, `GET` for documents.
    public var method: String
    /// The endpoint.
    public var url: HTTPURL
    /// Form parameters, in order; sent as `application/x-www-form-urlencoded` when not empty or when POST.
    public var form: [(String, String)]
    /// Extra request headers, in order.
    public var headers: [(name: String, value: String)]
    /// A raw body for requests that are not forms (resource calls); ignored when `form` is not empty.
    public var body: [UInt8]
    /// Redirects the transport may follow (0 for OAuth endpoints).
    public var maxRedirects: Int

    /// Makes a request.
    public init(
        role: EndpointRole, method: String = "POST", url: HTTPURL, form: [(String, String)] = [],
        headers: [(name: String, value: String)] = [], body: [UInt8] = [], maxRedirects: Int = 0
    ) {
        self.role = role
        self.method = method
        self.url = url
        self.form = form
        self.headers = headers
        self.body = body
        self.maxRedirects = maxRedirects
    }

    /// Appends `client_id` to the form unless it is there already (a pushed authorization request
    /// carries it as an authorization parameter, RFC 9126 §2.1; parameters are never sent twice,
    /// RFC 6749 §3.1).
    public mutating func appendClientID(_ clientID: String) {
        guard !form.contains(where: { $0.0 == "client_id" }) else { return }
        form.append(("client_id", clientID))
    }

    /// The first header named `name` (case-insensitive).
    public func header(_ name: String) -> String? {
        headers.first { HeaderName.equal($0.name, name) }?.value
    }

    /// Replaces every header named `name` with one of `value`.
    public mutating func setHeader(_ name: String, _ value: String) {
        headers.removeAll { HeaderName.equal($0.name, name) }
        headers.append((name, value))
    }

    /// The HTTP request: forms get their content type, and every OAuth request asks for JSON
    /// (GitHub answers form-encoded without it).
    func httpRequest(timeout: Double) -> HTTPRequest {
        var all: [(name: String, value: String)] = []
        var payload = body
        if !form.isEmpty || (method == "POST" && body.isEmpty) {
            all.append(("Content-Type", "application/x-www-form-urlencoded"))
            payload = Array(FormURLEncoding.encode(form).utf8)
        }
        if header("Accept") == nil { all.append(("Accept", "application/json")) }
        all.append(contentsOf: headers)
        return HTTPRequest(method: method, url: url, headers: all, body: payload, maxRedirects: maxRedirects, timeout: timeout)
    }
}
