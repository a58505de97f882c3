/// Why an HTTP exchange failed. Every case is a network-class failure (CLI exit code 6) except
/// `protocolViolation`, which means the server broke HTTP (exit code 7), and
/// `unreadableCABundle`, a local setting (exit code 2), and `untrustedCABundle`, a local storage
/// failure (exit code 9).
public enum HTTPError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The URL is unusable: not http(s), no host, or `http://` to a non-loopback host.
    case invalidURL(String)
    /// Name resolution failed for the host.
    case dnsFailure(host: String)
    /// TCP connect failed or was refused.
    case connectFailed(host: String, port: Int, reason: String)
    /// The TLS handshake failed; `reason` says why (untrusted, expired, name mismatch, version).
    case tlsFailure(reason: String)
    /// The deadline passed.
    case timedOut(after: Double)
    /// The connection broke mid-exchange.
    case ioFailure(reason: String)
    /// The proxy refused or failed the CONNECT.
    case proxyFailure(reason: String)
    /// The proxy variable (`HTTPS_PROXY` or `https_proxy`) names no proxy latchkey can use, so nothing
    /// was sent: going direct instead would bypass a proxy the user requires.
    case unusableProxy(variable: String, problem: ProxySettings.URLProblem)
    /// The response was malformed or exceeded a limit.
    case protocolViolation(reason: String)
    /// The task was cancelled.
    case cancelled
    /// A plain-HTTP request met a server that answers TLS on that port (`http://` written for `https://`).
    case tlsExpected(host: String, port: Int)
    /// A TLS handshake met a server that answered in plain HTTP (`https://` written for `http://`).
    case tlsNotSpoken(host: String, port: Int)
    /// The CA bundle named for verification (by the program or `SSL_CERT_FILE`) cannot be read:
    /// missing, not permitted, or not a regular file. Nothing was sent; a setting to fix, not a
    /// network failure.
    case unreadableCABundle(path: String, errno: Int32)
    /// Someone other than this user and root can write the CA bundle or a folder above it
    /// (`ForeignWriter`), so they could choose which servers are trusted. Nothing was sent; a local
    /// storage failure (exit code 9).
    case untrustedCABundle(path: String, writer: ForeignWriter)

    public var description: String {
        switch self {
        case .invalidURL(let s): return "invalid URL: \(s)"
        case .dnsFailure(let h): return "cannot resolve host \(h)"
        case .connectFailed(let h, let p, let r): return "cannot connect to \(h):\(p): \(r)"
        case .tlsFailure(let r): return "TLS failure: \(r)"
        case .timedOut(let t): return "timed out after \(t) s"
        case .ioFailure(let r): return "connection failed: \(r)"
        case .proxyFailure(let r): return "proxy failure: \(r)"
        case .unusableProxy(let v, let p): return "\(v) cannot be used: \(p); nothing was sent"
        case .protocolViolation(let r): return "malformed HTTP response: \(r)"
        case .cancelled: return "cancelled"
        case .tlsExpected(let h, let p): return "cannot talk to \(h):\(p): the server speaks TLS here: use https://"
        case .tlsNotSpoken(let h, let p):
            return "cannot talk to \(h):\(p): the server does not speak TLS here (it answered in plain text)"
        case .unreadableCABundle(let path, let code): return "cannot read the CA bundle \(path): \(ErrnoText.describe(code))"
        case .untrustedCABundle(let path, let writer):
            return "refusing the CA bundle \(path): \(writer) (only you or root may be able to change it)"
        }
    }
}
