/// Off-spec provider behaviour that must be switched on by name. Everything else providers do
/// differently is tolerated by the response decoders (see providers.md); only what weakens an
/// exact check lives here, off by default.
public struct ProviderQuirks: Sendable, Equatable {
    /// Microsoft Entra `/common`, `/organizations`, `/consumers`: the metadata's `issuer` is the literal
    /// `https://login.microsoftonline.com/{tenantid}/v2.0`. With this on, discovery accepts that template
    /// and ID-token verification substitutes the token's `tid` before the exact `iss` comparison.
    public var entraTenantIssuer: Bool

    /// No quirks (exact issuer matching everywhere).
    public init(entraTenantIssuer: Bool = false) {
        self.entraTenantIssuer = entraTenantIssuer
    }

    /// True when every quirk is off (the profile file then leaves `quirks` out).
    public var isEmpty: Bool { !entraTenantIssuer }

    /// Whether `documentIssuer` is acceptable for `configured` under these quirks.
    func acceptsIssuer(_ documentIssuer: String, configured: String) -> Bool {
        if documentIssuer == configured { return true }
        // The configured issuer names the tenant alias (common/organizations/consumers) where the template has {tenantid}.
        guard entraTenantIssuer, let (prefix, suffix) = EntraTenantTemplate.parts(documentIssuer) else { return false }
        guard configured.hasPrefix(prefix), configured.hasSuffix(suffix), configured.count > prefix.count + suffix.count else {
            return false
        }
        let alias = configured.dropFirst(prefix.count).dropLast(suffix.count)
        return ["common", "organizations", "consumers"].contains(String(alias))
    }
}
