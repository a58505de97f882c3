/// Where `https://` requests go, as `HTTPS_PROXY`/`https_proxy` and `NO_PROXY`/`no_proxy` say, with
/// curl's semantics. Plain `http://` requests (loopback only) never use it.
public enum ProxyRoute: Sendable, Equatable {
    /// No proxy variable set: connect directly.
    case direct
    /// Through this proxy, except for the hosts its `noProxy` entries name.
    case proxy(ProxySettings)
    /// The variable names no proxy latchkey can use. A request it covers fails with the error instead
    /// of going direct, as curl refuses such a setting; hosts in `noProxy` are still reached directly.
    case unusable(HTTPError, noProxy: [String])

    /// The route the environment names. The lowercase variables win over the uppercase ones, as in curl.
    public static func fromEnvironment(_ environment: [String: String]) -> ProxyRoute {
        let variable: String
        if ProxySettings.nonEmpty(environment["https_proxy"]) != nil {
            variable = "https_proxy"
        } else if ProxySettings.nonEmpty(environment["HTTPS_PROXY"]) != nil {
            variable = "HTTPS_PROXY"
        } else {
            return .direct
        }
        let noProxy = ProxySettings.parse(
            noProxy: ProxySettings.nonEmpty(environment["no_proxy"])
                ?? ProxySettings.nonEmpty(environment["NO_PROXY"]) ?? "")
        do {
            var proxy = try ProxySettings.validated(proxyURL: environment[variable] ?? "")
            proxy.noProxy = noProxy
            return .proxy(proxy)
        } catch {
            return .unusable(.unusableProxy(variable: variable, problem: error), noProxy: noProxy)
        }
    }

    /// The proxy for an `https://` request to `host`, nil to connect directly; throws when the
    /// variable is unusable and `host` is not exempt.
    public func proxy(forHost host: String) throws(HTTPError) -> ProxySettings? {
        switch self {
        case .direct: return nil
        case .proxy(let proxy): return proxy.bypasses(host: host) ? nil : proxy
        case .unusable(let error, let noProxy):
            if ProxySettings.bypasses(host: host, noProxy: noProxy) { return nil }
            throw error
        }
    }
}
