/// What a sign-in asks of the person's authentication (OpenID Connect Core §3.1.2.1): `acr_values`
/// (authentication context classes, in order of preference) and `max_age` (seconds since they last
/// authenticated). Sent on every request that starts an authorization (authorization or pushed,
/// device authorization as extension parameters, CIBA), and checked on the ID token that comes
/// back: `acr` one of `acrValues`, `auth_time` present and no older than `maxAge` plus the leeway.
public struct AuthenticationRequirement: Sendable, Equatable {
    /// The `acr` values asked for; empty: none.
    public var acrValues: [String]
    /// The `max_age`, in seconds; nil: none.
    public var maxAge: Int?

    /// A requirement; the default asks for nothing.
    public init(acrValues: [String] = [], maxAge: Int? = nil) {
        self.acrValues = acrValues
        self.maxAge = maxAge
    }

    /// True when it asks for nothing.
    public var isEmpty: Bool { acrValues.isEmpty && maxAge == nil }

    /// The request parameters it adds.
    public var parameters: [(String, String)] {
        var out: [(String, String)] = []
        if !acrValues.isEmpty { out.append(("acr_values", acrValues.joined(separator: " "))) }
        if let maxAge { out.append(("max_age", String(maxAge))) }
        return out
    }

    /// The parameter names it owns: an extra parameter of the same name gives way to it.
    var parameterNames: [String] { parameters.map(\.0) }
}
