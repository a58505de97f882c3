import Latchkey
import LatchkeyJOSE

/// `latchkey discover --issuer URL`: fetches and validates the issuer's metadata and prints it.
enum DiscoverCommand {
    static func run(_ context: CommandContext) async throws -> Int32 {
        let issuer = try context.arguments.required("issuer")
        let transport = ProfileAccess(context).transport()
        let metadata = try await TerminationSignals.startWatching().run {
            try await ProviderDiscovery.discover(issuer: issuer, transport: transport)
        }
        context.console.outLine(JSONOutput.text(json(metadata), console: context.console))
        return 0
    }

    /// The metadata as a JSON object with the standard member names; absent members left out.
    static func json(_ m: ProviderMetadata) -> JSONValue {
        var o = JSONObject()
        o["issuer"] = .string(m.issuer)
        func put(_ key: String, _ value: String?) { if let value { o[key] = .string(value) } }
        func put(_ key: String, _ value: [String]?) { if let value { o[key] = .array(value.map(JSONValue.string)) } }
        put("authorization_endpoint", m.authorizationEndpoint)
        put("token_endpoint", m.tokenEndpoint)
        put("device_authorization_endpoint", m.deviceAuthorizationEndpoint)
        put("revocation_endpoint", m.revocationEndpoint)
        put("jwks_uri", m.jwksURI)
        put("userinfo_endpoint", m.userinfoEndpoint)
        put("id_token_signing_alg_values_supported", m.idTokenSigningAlgValuesSupported)
        put("code_challenge_methods_supported", m.codeChallengeMethodsSupported)
        put("scopes_supported", m.scopesSupported)
        put("grant_types_supported", m.grantTypesSupported)
        put("token_endpoint_auth_methods_supported", m.tokenEndpointAuthMethodsSupported)
        if let b = m.authorizationResponseIssParameterSupported { o["authorization_response_iss_parameter_supported"] = .bool(b) }
        return .object(o)
    }
}
