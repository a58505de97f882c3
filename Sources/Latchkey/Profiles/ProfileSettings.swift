import LatchkeyJOSE

/// What `<state-dir>/profiles/NAME.json` holds: the client configuration and the key source,
/// written on a profile's first login and read by every later command. Never a secret.
package struct ProfileSettings: Sendable, Equatable {
    /// Issuer, client_id, scopes, endpoint overrides, redirect URI, auth method, PKCE.
    public var client: ClientConfiguration
    /// How the token file is encrypted; fixed at the first login.
    public var keySource: KeySource
    /// The host (with `:port` when not 443) a git credential helper answers for; nil: the issuer's host.
    /// The git fields are the CLI's (`latchkey credential`), kept here only so the file stays one.
    package var credentialHost: String?
    /// The user name a git credential helper answers with; nil: `oauth2`.
    package var credentialUsername: String?
    /// OpenID Connect RP-Initiated Logout §2: where the provider sends the browser after logout.
    public var postLogoutRedirectURI: String?
    /// RFC 8705: the PEM client certificate (chain) presented to the provider, by absolute path; read at each use.
    public var clientCertificateFile: String?
    /// The PEM private key of `clientCertificateFile`, by absolute path; read at each use, never copied.
    public var clientCertificateKeyFile: String?
    /// `private_key_jwt`: the path of the client's private key file, read at each use. The key
    /// itself is never copied into the profile.
    public var clientKeyFile: String?
    /// The PEM CA bundle `login --ca-file` named, by absolute path: the profile's default, below a
    /// later `--ca-file` or the CA variables of the environment. Read at each use, never copied.
    public var caFile: String?
    /// The offline_access-without-DPoP warning was shown once for this profile: it is not repeated.
    public var offlineAccessWarned = false
    /// `config set min-ttl`: the refresh margin `token`, `fetch`, `proof` and `credential get` use
    /// when no `--min-ttl` is given, in seconds, used as given; nil: the standard margin.
    public var minTTL: Int64?

    /// The names of the optional string members, in the order they are written.
    static var optionalMembers: [(name: String, path: WritableKeyPath<ProfileSettings, String?>)] {
        [("credential_host", \.credentialHost), ("credential_username", \.credentialUsername),
         ("post_logout_redirect_uri", \.postLogoutRedirectURI), ("client_key_file", \.clientKeyFile),
         ("client_cert_file", \.clientCertificateFile), ("client_cert_key_file", \.clientCertificateKeyFile),
         ("ca_file", \.caFile)]
    }

    /// The JSON document: the library's `ClientConfiguration` codec plus `key_source`.
    public var json: JSONValue {
        var o = client.json
        o["key_source"] = .string(keySource.name)
        for member in Self.optionalMembers { o.setIfPresent(member.name, self[keyPath: member.path]) }
        if offlineAccessWarned { o["offline_access_warned"] = .bool(true) }
        if let minTTL { o["min_ttl"] = .integer(minTTL) }
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
        for member in Self.optionalMembers {
            guard let value = json[member.name] else { continue }
            guard let text = value.stringValue else { throw .invalid(path: path, reason: "\"\(member.name)\" must be a string") }
            self[keyPath: member.path] = text
        }
        if let value = json["offline_access_warned"] {
            guard case .bool(let warned) = value else { throw .invalid(path: path, reason: "\"offline_access_warned\" must be true or false") }
            offlineAccessWarned = warned
        }
        if let value = json["min_ttl"] {
            guard let seconds = value.int64Value, seconds >= 0 else {
                throw .invalid(path: path, reason: "\"min_ttl\" must be a whole number of seconds ≥ 0")
            }
            minTTL = seconds
        }
    }

    /// Makes settings from parts.
    public init(client: ClientConfiguration, keySource: KeySource) {
        self.client = client
        self.keySource = keySource
    }
}
