import Glibc

extension HTTPClient {
    /// How an `HTTPClient` connects: trust anchors, client identity, timeouts, proxy, limits and logging.
    public struct Configuration: Sendable {
        /// PEM CA bundle used to verify servers; nil means "none found" and every https request fails.
        public var caFile: String?
        /// Seconds allowed for the TCP connect (also bounded by the request's overall timeout).
        public var connectTimeout: Double
        /// Where `https://` requests go: directly, through a proxy, or nowhere (an unusable proxy variable).
        public var proxyRoute: ProxyRoute
        /// Response size limits.
        public var limits: HTTPResponseParser.Limits
        /// The `User-Agent` header.
        public var userAgent: String
        /// The certificate and key presented to every https origin that asks for one (mutual TLS); nil
        /// presents none. Never to a proxy: the CONNECT tunnel is opened first, and TLS runs inside it.
        public var clientIdentity: TLSClientIdentity?
        /// Verbose-mode log sink. Lines are already redacted (credentials, tokens, codes, secrets).
        public var logger: (@Sendable (String) -> Void)?

        /// Makes a configuration; `proxy` nil connects directly. Use `fromEnvironment` to honour the CA and
        /// proxy variables.
        public init(
            caFile: String? = nil, connectTimeout: Double = 10, proxy: ProxySettings? = nil,
            limits: HTTPResponseParser.Limits = .init(), userAgent: String = "latchkey/0.1",
            clientIdentity: TLSClientIdentity? = nil, logger: (@Sendable (String) -> Void)? = nil
        ) {
            self.caFile = caFile
            self.clientIdentity = clientIdentity
            self.connectTimeout = connectTimeout
            self.proxyRoute = proxy.map(ProxyRoute.proxy) ?? .direct
            self.limits = limits
            self.userAgent = userAgent
            self.logger = logger
        }

        /// A configuration from the environment: CA bundle via `resolveCAFile` (`remembered` is the
        /// program's stored default, below the environment), proxy route via
        /// `ProxyRoute.fromEnvironment` (an unusable proxy variable fails the requests it covers).
        public static func fromEnvironment(
            _ environment: [String: String], caFile explicit: String? = nil,
            remembered: String? = nil,
            logger: (@Sendable (String) -> Void)? = nil
        ) -> Configuration {
            var configuration = Configuration(
                caFile: HTTPClient.resolveCAFile(
                    explicit: explicit, environment: environment,
                    remembered: remembered),
                logger: logger)
            configuration.proxyRoute = ProxyRoute.fromEnvironment(environment)
            return configuration
        }
    }

    /// Well-known system CA bundle locations (Debian/Ubuntu, Fedora/RHEL, Alpine/macOS-style, SUSE, Android-less
    /// embedded roots), tried in order.
    public static let systemCABundlePaths = [
        "/etc/ssl/certs/ca-certificates.crt",
        "/etc/pki/tls/certs/ca-bundle.crt",
        "/etc/ssl/cert.pem",
        "/etc/pki/ca-trust/extracted/pem/tls-ca-bundle.pem",
        "/etc/ssl/ca-bundle.pem",
        "/usr/local/share/certs/ca-root-nss.crt"
    ]

    /// True when `error` says that no CA bundle was found anywhere (nothing explicit, no `SSL_CERT_FILE`,
    /// no system bundle), so a program can tell the person how to name one.
    public static func isMissingCABundle(_ error: HTTPError) -> Bool {
        if case .tlsFailure(let reason) = error { return reason == CACertificateChain.noBundleReason }
        return false
    }

    /// Checks a CA bundle as every TLS session will before trusting it: readable, a regular file, and
    /// writable by nobody but this user and root, the folders above it included. For a program that
    /// remembers a bundle, so that a bad one is refused when it is named rather than at first use.
    public static func checkCABundle(_ path: String) throws(HTTPError) {
        _ = try readCABundle(path)
    }

    /// The bundle's bytes, read by the rule of `checkCABundle`: for a caller that also looks
    /// inside the file (a PEM certificate in it), so that it is opened and walked once.
    package static func readCABundle(_ path: String) throws(HTTPError) -> [UInt8] {
        try CACertificateChain.readTrusted(path)
    }

    /// The CA bundle to use: `explicit` (the program's own setting for this run), then
    /// `SSL_CERT_FILE`, then `remembered` (a default the program stored, such as a profile's bundle
    /// from its login), then the first readable system bundle. A named path is returned even if
    /// unreadable, so the user gets an error about the file they named rather than a silent fallback.
    public static func resolveCAFile(explicit: String?, environment: [String: String], remembered: String? = nil) -> String? {
        for candidate in [explicit, environment["SSL_CERT_FILE"], remembered] {
            if let candidate, !candidate.isEmpty { return candidate }
        }
        return systemCABundlePaths.first { access($0, R_OK) == 0 }
    }
}
