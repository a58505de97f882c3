import LatchkeyHTTP

/// Receives the redirect on a loopback listener (RFC 8252 §7.3): `http://127.0.0.1:<port>/callback`,
/// an ephemeral port unless a fixed redirect URI is configured (for IdPs that match it exactly).
struct LoopbackRedirectReceiver: RedirectReceiver {
    /// `http://127.0.0.1:<port><path>`, with the port actually bound.
    let redirectURI: String
    let listener: LoopbackRedirectListener
    let path: String

    /// Binds the listener now, so the redirect URI (with its port) is known before the URL is shown.
    init(redirectURI: String?) throws(LatchkeyError) {
        var port: UInt16 = 0
        var path = "/callback"
        var host = "127.0.0.1"
        if let redirectURI {
            // `HTTPURL` admits http only to a loopback host, so the scheme is the whole check.
            guard let url = HTTPURL(string: redirectURI), url.scheme == "http" else {
                throw .configuration(
                    .unusableRedirectURI(redirectURI, reason: "the browser flow needs an http://127.0.0.1:PORT/… redirect URI"))
            }
            guard let p = UInt16(exactly: url.port ?? 80) else {
                throw .configuration(.unusableRedirectURI(redirectURI, reason: "the port is not a number from 0 to 65535"))
            }
            port = p
            path = url.path.isEmpty ? "/" : url.path
            // Listen exactly where the browser will be sent (127.0.0.2, [::1], …).
            host = url.hostLiteral
        }
        do { listener = try LoopbackRedirectListener(host: host, port: port) } catch { throw .network(error) }
        self.path = path
        self.redirectURI = redirectURI ?? listener.redirectURI(path: path)
    }

    /// Waits for the browser's redirect that `accepting` approves (600 s without a timeout); others
    /// are answered and ignored.
    func receive(timeout: Double?, accepting: @escaping @Sendable (AuthorizationRedirect) -> Bool)
        async throws(LatchkeyError) -> AuthorizationRedirect
    {
        do {
            return .parameters(
                try await listener.waitForRedirect(
                    path: path, timeout: timeout ?? 600,
                    accepting: { accepting(.parameters($0)) }))
        } catch let e as HTTPError {
            if e == .cancelled { throw .cancelled }
            if case .timedOut(let t) = e { throw .timedOut(seconds: t) }
            throw .network(e)
        } catch is CancellationError {
            throw .cancelled
        } catch {
            throw .network(.ioFailure(reason: "\(error)"))
        }
    }
}
