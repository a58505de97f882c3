import LatchkeyJOSE

/// What `<state-dir>/profiles/NAME.json` holds: the client configuration and the key source,
/// written on a profile's first login and read by every later command. Never a secret.
public struct ProfileSettings: Sendable, Equatable {
    /// Issuer, client_id, scopes, endpoint overrides, redirect URI, auth method, PKCE.
    public var client: ClientConfiguration
    /// How the token file is encrypted; fixed at the first login.
    public var keySource: KeySource

    /// The JSON document: the library's `ClientConfiguration` codec plus `key_source`.
    public var json: JSONValue {
        var o = client.json
        o["key_source"] = .string(keySource.name)
        return .object(o)
    }

    /// Reads the document; throws `ProfileFileError.invalid` naming the bad member.
    public init(json: JSONObject, path: String) throws(ProfileFileError) {
        do {
            client = try ClientConfiguration(json: json)
        } catch {
            throw .invalid(path: path, reason: error.description)
        }
        let source: String
        if let value = json["key_source"] {
            guard let s = value.stringValue else { throw .invalid(path: path, reason: "\"key_source\" must be a string") }
            source = s
        } else {
            source = "machine"
        }
        guard let keySource = KeySource(name: source) else {
            throw .invalid(path: path, reason: "unknown key_source \"\(source)\"")
        }
        self.keySource = keySource
    }

    /// Makes settings from parts.
    public init(client: ClientConfiguration, keySource: KeySource) {
        self.client = client
        self.keySource = keySource
    }
}
