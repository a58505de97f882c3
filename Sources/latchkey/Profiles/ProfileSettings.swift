import Latchkey
import LatchkeyJOSE

/// What `<state-dir>/profiles/NAME.json` holds: the client configuration and the key source,
/// written on a profile's first login and read by every later command. Never a secret.
struct ProfileSettings: Sendable, Equatable {
    /// Issuer, client_id, scopes, endpoint overrides, redirect URI, auth method, PKCE.
    var client: ClientConfiguration
    /// How the token file is encrypted; fixed at the first login.
    var keySource: KeySource

    /// The JSON document (members in a stable order, unset ones left out).
    var json: JSONValue {
        var o = JSONObject()
        o["issuer"] = .string(client.issuer)
        o["client_id"] = .string(client.clientID)
        o["scopes"] = .array(client.scopes.map(JSONValue.string))
        o["auth_method"] = .string(client.authMethod.rawValue)
        o["pkce"] = .string(client.pkce.rawValue)
        if let uri = client.redirectURI { o["redirect_uri"] = .string(uri) }
        var endpoints = JSONObject()
        let e = client.endpoints
        if let v = e.deviceAuthorization { endpoints["device_authorization_endpoint"] = .string(v) }
        if let v = e.token { endpoints["token_endpoint"] = .string(v) }
        if let v = e.authorization { endpoints["authorization_endpoint"] = .string(v) }
        if let v = e.revocation { endpoints["revocation_endpoint"] = .string(v) }
        if let v = e.jwksURI { endpoints["jwks_uri"] = .string(v) }
        if endpoints.count > 0 { o["endpoints"] = .object(endpoints) }
        if let algs = client.allowedAlgorithms { o["allowed_algorithms"] = .array(algs.map(JSONValue.string)) }
        o["leeway"] = .number(SecondsText.json(client.leeway))
        o["key_source"] = .string(keySource.argument)
        return .object(o)
    }

    /// Reads the document; throws `ProfileFileError.invalid` naming the bad member.
    init(json: JSONObject, path: String) throws(ProfileFileError) {
        func string(_ key: String) throws(ProfileFileError) -> String? {
            guard let value = json[key] else { return nil }
            guard let s = value.stringValue else { throw .invalid(path: path, reason: "\"\(key)\" must be a string") }
            return s
        }
        func strings(_ key: String) throws(ProfileFileError) -> [String]? {
            guard let value = json[key] else { return nil }
            guard let a = value.arrayValue, a.allSatisfy({ $0.stringValue != nil }) else {
                throw .invalid(path: path, reason: "\"\(key)\" must be an array of strings")
            }
            return a.compactMap(\.stringValue)
        }
        guard let issuer = try string("issuer"), let clientID = try string("client_id") else {
            throw .invalid(path: path, reason: "\"issuer\" and \"client_id\" are required")
        }
        var client = ClientConfiguration(issuer: issuer, clientID: clientID)
        if let scopes = try strings("scopes") { client.scopes = scopes }
        if let method = try string("auth_method") {
            guard let m = ClientAuthMethod(rawValue: method) else { throw .invalid(path: path, reason: "unknown auth_method \"\(method)\"") }
            client.authMethod = m
        }
        if let pkce = try string("pkce") {
            guard let p = PKCEMode(rawValue: pkce) else { throw .invalid(path: path, reason: "unknown pkce \"\(pkce)\"") }
            client.pkce = p
        }
        client.redirectURI = try string("redirect_uri")
        if let endpoints = json["endpoints"] {
            guard let e = endpoints.objectValue else { throw .invalid(path: path, reason: "\"endpoints\" must be an object") }
            func endpoint(_ key: String) throws(ProfileFileError) -> String? {
                guard let v = e[key] else { return nil }
                guard let s = v.stringValue else { throw .invalid(path: path, reason: "\"\(key)\" must be a string") }
                return s
            }
            client.endpoints = EndpointOverrides(
                deviceAuthorization: try endpoint("device_authorization_endpoint"), token: try endpoint("token_endpoint"),
                authorization: try endpoint("authorization_endpoint"), revocation: try endpoint("revocation_endpoint"),
                jwksURI: try endpoint("jwks_uri"))
        }
        client.allowedAlgorithms = try strings("allowed_algorithms")
        if let leeway = json["leeway"] {
            guard let d = leeway.doubleValue, d >= 0 else { throw .invalid(path: path, reason: "\"leeway\" must be a number ≥ 0") }
            client.leeway = d
        }
        let source = try string("key_source") ?? "machine"
        guard let keySource = KeySource(argument: source) else {
            throw .invalid(path: path, reason: "unknown key_source \"\(source)\"")
        }
        self.client = client
        self.keySource = keySource
    }

    /// Makes settings from parts.
    init(client: ClientConfiguration, keySource: KeySource) {
        self.client = client
        self.keySource = keySource
    }
}
