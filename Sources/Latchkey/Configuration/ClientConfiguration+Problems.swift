import LatchkeyHTTP

/// The rules about which settings go together, in one place: `Session.signIn` refuses a sign-in
/// with the first problem before anything is sent, and a program can ask first to word them in
/// its own terms (the CLI names its options).
extension ClientConfiguration {
    /// Every reason a sign-in with `flow`, given `materials`, cannot work, in a fixed order (the
    /// configuration's addresses, then the client's authentication, then the flow's inputs).
    /// Without `metadata` only what the configuration alone decides; with the provider's metadata
    /// also the rules that depend on it (PAR, DPoP for offline access).
    package func problems(
        for flow: LoginFlow, given materials: SignInMaterials,
        metadata: ProviderMetadata? = nil
    ) -> [ConfigurationProblem] {
        var found: [ConfigurationProblem] = []
        if let problem = Self.issuerProblem(issuer) { found.append(problem) }
        if let redirectURI, !Self.isAbsoluteURIWithoutFragment(redirectURI) {
            found.append(.unusableRedirectURI(redirectURI, reason: "the redirect URI must be an absolute URI without fragment"))
        }
        for name in EndpointOverrides.members {
            // The same rule as every request: https, or http to a loopback host.
            if let value = endpoints.member(name), HTTPURL(string: value) == nil {
                found.append(.unusableEndpoint(member: name, url: value))
            }
        }
        for resource in resources where !ResourceIndicator.isValid(resource) { found.append(.unusableResource(resource)) }
        found += authenticationProblems(for: flow, given: materials)
        if flow == .ciba && !materials.loginHint { found.append(.missingLoginHint) }
        if flow == .paste && !materials.pasteReader { found.append(.missingPasteReader) }
        if flow == .jwtBearer && !materials.assertion { found.append(.missingAssertion) }
        if !flow.isRepeatedGrant, materials.offlineAccess == .requireDPoP, OfflineAccessPolicy.applies(to: self),
            dpop == .never || metadata.map({ !dpop.uses($0) }) == true
        {
            found.append(.offlineAccessWithoutDPoP)
        }
        if let metadata, flow == .browser || flow == .paste {
            do { _ = try par.uses(metadata) } catch {
                if case .configuration(let problem) = error { found.append(problem) }
            }
        }
        return found
    }

    /// The client's authentication against what the flow needs and what is at hand.
    func authenticationProblems(for flow: LoginFlow, given materials: SignInMaterials) -> [ConfigurationProblem] {
        var found: [ConfigurationProblem] = []
        if authMethod.usesClientCertificate && !materials.clientCertificate {
            found.append(.missingClientCertificate(method: authMethod))
        }
        guard !materials.customClientAuthentication else { return found }
        switch authMethod {
        case .clientSecretBasic, .clientSecretPost:
            if !materials.clientSecret { found.append(.missingClientSecret(method: authMethod)) }
        case .privateKeyJWT:
            if !materials.clientKey { found.append(.missingClientKey) }
        case .none:
            // Neither grant has a person's approval to stand on, so the client must prove who it is.
            if flow == .clientCredentials { found.append(.clientCredentialsNeedClientAuthentication) }
            if flow == .ciba { found.append(.backchannelNeedsClientAuthentication) }
        case .tlsClientAuth, .selfSignedTLSClientAuth:
            break
        }
        return found
    }

    /// Why `issuer` cannot be an issuer identifier, or nil: it must be an https URL (http only to
    /// loopback) without query or fragment (OIDC Discovery §4.3, RFC 8414 §2), and not a discovery
    /// document's own URL.
    public static func issuerProblem(_ issuer: String) -> ConfigurationProblem? {
        guard let url = HTTPURL(string: issuer), url.query == nil, url.fragment == nil else { return .unusableIssuer(issuer) }
        if let meant = ProviderDiscovery.issuerBehindDiscoveryURL(url) { return .discoveryURLAsIssuer(given: issuer, issuer: meant) }
        return nil
    }

    /// True for an absolute URI (RFC 3986 §4.3) without fragment in printable ASCII: what a
    /// redirect URI must be (RFC 6749 §3.1.2), and a logout redirect too; the same rule as a
    /// resource indicator's (RFC 8707 §2).
    public static func isAbsoluteURIWithoutFragment(_ text: String) -> Bool { ResourceIndicator.isValid(text) }
}
