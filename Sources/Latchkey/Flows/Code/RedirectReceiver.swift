import LatchkeyHTTP

/// What came back from the authorization server through the user agent.
enum AuthorizationRedirect: Sendable {
    /// The redirect's query parameters (`code`, `state`, `iss`, or `error`…).
    case parameters([(String, String)])
    /// Only the code, pasted by hand; there is no `state` to check then.
    case bareCode(String)
}

/// Where the authorization response arrives: a loopback listener (RFC 8252 §7.3) or a paste.
protocol RedirectReceiver: Sendable {
    /// The `redirect_uri` to send in the authorization and token requests.
    var redirectURI: String { get }
    /// Waits for the redirect (at most `timeout` seconds when given). A receiver that can keep
    /// waiting (the loopback listener) ignores redirects that `accepting` refuses (a wrong `state`),
    /// so a stray request cannot end the sign-in; one that cannot (a paste) returns what it got.
    func receive(timeout: Double?, accepting: @escaping @Sendable (AuthorizationRedirect) -> Bool)
        async throws(LatchkeyError) -> AuthorizationRedirect
}

/// Paste mode, for SSH sessions: the user copies the URL the browser was redirected to (which fails
/// to load on their machine) or just the code, and pastes it.
struct PastedRedirectReceiver: RedirectReceiver {
    /// The registered redirect URI used when none is configured.
    static let defaultRedirectURI = "http://127.0.0.1:53682/callback"
    /// The redirect URI registered with the provider.
    let redirectURI: String
    let readLine: @Sendable () async throws -> String?

    /// Makes a receiver that reads one line with `readLine`.
    init(redirectURI: String, readLine: @escaping @Sendable () async throws -> String?) {
        self.redirectURI = redirectURI
        self.readLine = readLine
    }

    /// Reads one pasted line. End of input before a line is `.configuration(.endOfPastedInput)`;
    /// only a cancelled read (SIGINT) is `.cancelled`. The person pasted it, so a refused paste is
    /// reported by the flow rather than waited past.
    func receive(timeout: Double?, accepting: @escaping @Sendable (AuthorizationRedirect) -> Bool)
        async throws(LatchkeyError) -> AuthorizationRedirect
    {
        let line: String?
        do { line = try await readLine() } catch is CancellationError { throw .cancelled } catch { throw .cancelled }
        guard let line else { throw .configuration(.endOfPastedInput) }
        return try Self.parse(line)
    }

    /// Reads a pasted line: a full redirect URL, a bare query string, or a bare code.
    static func parse(_ line: String) throws(LatchkeyError) -> AuthorizationRedirect {
        let text = String(
            line.drop(while: { $0 == " " || $0 == "\t" }).reversed().drop(while: { $0 == " " || $0 == "\t" || $0 == "\r" || $0 == "\n" })
                .reversed())
        guard !text.isEmpty else { throw .protocolViolation("nothing was pasted") }
        if let q = text.firstIndex(of: "?") {
            var query = text[text.index(after: q)...]
            if let hash = query.firstIndex(of: "#") { query = query[..<hash] }
            return .parameters(FormURLEncoding.decode(String(query)))
        }
        if text.contains("=") { return .parameters(FormURLEncoding.decode(text)) }
        return .bareCode(text)
    }
}
