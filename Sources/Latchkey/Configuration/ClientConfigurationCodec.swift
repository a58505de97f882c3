import LatchkeyJOSE

// The one codec for a client's configuration: the profile file is written and read with it
// (the CLI adds only `key_source`), so a member added to `ClientConfiguration` cannot be written
// and then silently dropped on read (the round-trip test enumerates them).
extension ClientConfiguration {
    /// The configuration as JSON, members in a stable order, unset ones left out.
    public var json: JSONObject {
        var o = JSONObject()
        o["issuer"] = .string(issuer)
        o["client_id"] = .string(clientID)
        o["scopes"] = .array(scopes.map(JSONValue.string))
        o["auth_method"] = .string(authMethod.rawValue)
        o["pkce"] = .string(pkce.rawValue)
        o.setIfPresent("redirect_uri", redirectURI)
        if !endpoints.isEmpty { o["endpoints"] = .object(endpoints.json) }
        o.setIfPresent("allowed_algorithms", allowedAlgorithms)
        o["leeway"] = .seconds(leeway)
        if !quirks.isEmpty { o["quirks"] = .object(quirks.json) }
        o["dpop"] = .string(dpop.rawValue)
        o["par"] = .string(par.rawValue)
        if !resources.isEmpty { o["resources"] = .array(resources.map(JSONValue.string)) }
        if !extraParameters.isEmpty {
            o["parameters"] = .array(
                extraParameters.map { p in
                    var pair = JSONObject()
                    pair["name"] = .string(p.name)
                    pair["value"] = .string(p.value)
                    return .object(pair)
                })
        }
        if !clientAssertion.isDefault { o["client_assertion"] = .object(clientAssertion.json) }
        return o
    }

    /// Reads a configuration; members that older files lack get their defaults.
    public init(json: JSONObject) throws(DocumentError) {
        let m = JSONMembers(json)
        self.init(issuer: try m.requiredString("issuer"), clientID: try m.requiredString("client_id"))
        if let scopes = try m.strings("scopes") { self.scopes = scopes }
        if let method = try m.enumeration("auth_method", ClientAuthMethod.self) { authMethod = method }
        if let mode = try m.enumeration("pkce", PKCEMode.self) { pkce = mode }
        redirectURI = try m.string("redirect_uri")
        if let e = try m.object("endpoints") { endpoints = try EndpointOverrides(members: e) }
        allowedAlgorithms = try m.strings("allowed_algorithms")
        if let l = try m.number("leeway") {
            guard l >= 0 else { throw .invalid(member: "leeway", reason: "must be a number ≥ 0") }
            leeway = l
        }
        if let q = try m.object("quirks") { quirks = try ProviderQuirks(members: q) }
        if let mode = try m.enumeration("dpop", DPoPMode.self) { dpop = mode }
        if let mode = try m.enumeration("par", PARMode.self) { par = mode }
        if let list = try m.strings("resources") {
            for r in list where !ResourceIndicator.isValid(r) {
                throw .invalid(member: "resources", reason: "\"\(r)\" is not an absolute URI without fragment")
            }
            resources = list
        }
        if let list = m.value("parameters") {
            guard case .array(let items) = list else { throw .invalid(member: "parameters", reason: "must be an array") }
            extraParameters = try items.map { item throws(DocumentError) in
                guard case .object(let o) = item, case .string(let name)? = o["name"], case .string(let value)? = o["value"] else {
                    throw .invalid(member: "parameters", reason: "each entry must be {\"name\": string, \"value\": string}")
                }
                guard let p = RequestParameter.usable(name: name, value: value) else {
                    throw .invalid(member: "parameters", reason: "\"\(name)\" cannot be sent as an extra parameter")
                }
                return p
            }
        }
        if let a = try m.object("client_assertion") { clientAssertion = try ClientAssertionSettings(members: a) }
    }
}

extension ClientAssertionSettings {
    /// The settings that differ from the defaults, as JSON.
    public var json: JSONObject {
        var o = JSONObject()
        o.setIfPresent("alg", algorithm?.rawValue)
        o.setIfPresent("kid", keyID)
        if type != .clientAuthentication { o["typ"] = .string(type.rawValue) }
        if audience != .issuer { o["aud"] = .string(audience.rawValue) }
        return o
    }

    init(members m: JSONMembers) throws(DocumentError) {
        self.init()
        algorithm = try m.enumeration("alg", JWSAlgorithm.self)
        keyID = try m.string("kid")
        if let t = try m.enumeration("typ", ClientAssertionType.self) { type = t }
        if let a = try m.enumeration("aud", ClientAssertionAudience.self) { audience = a }
    }
}

extension EndpointOverrides {
    /// Members named as in provider metadata.
    static let members: [String] = [
        "device_authorization_endpoint",
        "token_endpoint",
        "authorization_endpoint",
        "revocation_endpoint",
        "jwks_uri"
    ]
    /// The member named `name` of `members`.
    func member(_ name: String) -> String? {
        switch name {
        case "device_authorization_endpoint": return deviceAuthorization
        case "token_endpoint": return token
        case "authorization_endpoint": return authorization
        case "revocation_endpoint": return revocation
        case "jwks_uri": return jwksURI
        default: return nil
        }
    }
    /// Sets the member named `name` of `members`.
    mutating func setMember(_ name: String, _ value: String?) {
        switch name {
        case "device_authorization_endpoint": deviceAuthorization = value
        case "token_endpoint": token = value
        case "authorization_endpoint": authorization = value
        case "revocation_endpoint": revocation = value
        case "jwks_uri": jwksURI = value
        default: break
        }
    }

    /// The set overrides as JSON.
    public var json: JSONObject {
        var o = JSONObject()
        for name in Self.members { o.setIfPresent(name, member(name)) }
        return o
    }

    init(members m: JSONMembers) throws(DocumentError) {
        self.init()
        for name in Self.members { setMember(name, try m.string(name)) }
    }
}

extension ProviderQuirks {
    /// The quirks switched on, as JSON.
    public var json: JSONObject {
        var o = JSONObject()
        if entraTenantIssuer { o["entra_tenant_issuer"] = .bool(true) }
        return o
    }

    init(members m: JSONMembers) throws(DocumentError) {
        self.init(entraTenantIssuer: try m.bool("entra_tenant_issuer") ?? false)
    }
}
