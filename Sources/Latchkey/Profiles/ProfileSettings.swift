import LatchkeyJOSE

/// What `<state-dir>/profiles/NAME.json` holds: the client configuration and the key source,
/// written on a profile's first login and read by every later command. Never a secret.
package struct ProfileSettings: Sendable, Equatable {
    /// Issuer, client_id, scopes, endpoint overrides, redirect URI, auth method, PKCE.
    package var client: ClientConfiguration
    /// How the token file is encrypted; fixed at the first login.
    package var keySource: KeySource
    /// The host (with `:port` when not 443) a git credential helper answers for; nil: the issuer's host.
    /// The git fields are the CLI's (`latchkey credential`), kept here only so the file stays one.
    package var credentialHost: String?
    /// The user name a git credential helper answers with; nil: `oauth2`.
    package var credentialUsername: String?
    /// OpenID Connect RP-Initiated Logout §2: where the provider sends the browser after logout.
    package var postLogoutRedirectURI: String?
    /// RFC 8705: the PEM client certificate (chain) presented to the provider, by absolute path; read at each use.
    package var clientCertificateFile: String?
    /// The PEM private key of `clientCertificateFile`, by absolute path; read at each use, never copied.
    package var clientCertificateKeyFile: String?
    /// `private_key_jwt`: the path of the client's private key file, read at each use. The key
    /// itself is never copied into the profile.
    package var clientKeyFile: String?
    /// `private_key_jwt` with a ready-made assertion (RFC 7523 §2.2): the path of the file it is
    /// read from at each request, in place of `clientKeyFile`. Never copied.
    package var clientAssertionFile: String?
    /// The JWT bearer grant (RFC 7523 §2.1): the path of the assertion file, read at the sign-in
    /// and at each renewal. Never copied.
    package var assertionFile: String?
    /// The PEM CA bundle `login --ca-file` named, by absolute path: the profile's default, below a
    /// later `--ca-file` or the CA variables of the environment. Read at each use, never copied.
    package var caFile: String?
    /// The flow of the profile's last sign-in of a person (`device`, `browser`, `paste`, `ciba`):
    /// `fetch --sign-in` signs in again the same way (cli.md: "the profile's flow") unless its
    /// `--flow` says otherwise. A value this build does not know is ignored there, not trusted.
    package var signInFlow: String?
    /// The offline_access-without-DPoP warning was shown once for this profile: it is not repeated.
    package var offlineAccessWarned = false
    /// `config set min-ttl`: the refresh margin `token`, `fetch`, `proof` and `credential get` use
    /// when no `--min-ttl` is given, in seconds, used as given; nil: the standard margin.
    package var minTTL: Int64?

    /// The names of the optional string members, in the order they are written (a name list with
    /// switch accessors: a key-path table is built at run time, on every `latchkey token`).
    static let optionalMembers: [String] = [
        "credential_host",
        "credential_username",
        "post_logout_redirect_uri",
        "client_key_file",
        "client_assertion_file",
        "assertion_file",
        "client_cert_file",
        "client_cert_key_file",
        "ca_file",
        "sign_in_flow"
    ]

    /// The optional string member named `name`.
    func optionalMember(_ name: String) -> String? {
        switch name {
        case "credential_host": return credentialHost
        case "credential_username": return credentialUsername
        case "post_logout_redirect_uri": return postLogoutRedirectURI
        case "client_key_file": return clientKeyFile
        case "client_assertion_file": return clientAssertionFile
        case "assertion_file": return assertionFile
        case "client_cert_file": return clientCertificateFile
        case "client_cert_key_file": return clientCertificateKeyFile
        case "ca_file": return caFile
        case "sign_in_flow": return signInFlow
        default: return nil
        }
    }

    /// Sets the optional string member named `name`.
    mutating func setOptionalMember(_ name: String, _ value: String?) {
        switch name {
        case "credential_host": credentialHost = value
        case "credential_username": credentialUsername = value
        case "post_logout_redirect_uri": postLogoutRedirectURI = value
        case "client_key_file": clientKeyFile = value
        case "client_assertion_file": clientAssertionFile = value
        case "assertion_file": assertionFile = value
        case "client_cert_file": clientCertificateFile = value
        case "client_cert_key_file": clientCertificateKeyFile = value
        case "ca_file": caFile = value
        case "sign_in_flow": signInFlow = value
        default: break
        }
    }

    /// The JSON document: the library's `ClientConfiguration` codec plus `key_source`.
    package var json: JSONValue {
        var o = client.json
        o["key_source"] = .string(keySource.name)
        for name in Self.optionalMembers { o.setIfPresent(name, optionalMember(name)) }
        if offlineAccessWarned { o["offline_access_warned"] = .bool(true) }
        if let minTTL { o["min_ttl"] = .integer(minTTL) }
        return .object(o)
    }

    /// Reads the document; throws `ProfileFileError.invalid` naming the bad member.
    package init(json: JSONObject, path: String) throws(ProfileFileError) {
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
        for name in Self.optionalMembers {
            guard let value = json[name] else { continue }
            guard let text = value.stringValue else { throw .invalid(path: path, reason: "\"\(name)\" must be a string") }
            setOptionalMember(name, text)
        }
        if let value = json["offline_access_warned"] {
            guard case .bool(let warned) = value else {
                throw .invalid(path: path, reason: "\"offline_access_warned\" must be true or false")
            }
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
    package init(client: ClientConfiguration, keySource: KeySource) {
        self.client = client
        self.keySource = keySource
    }
}
