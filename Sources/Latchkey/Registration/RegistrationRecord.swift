import LatchkeyJOSE

/// What a device keeps about its own registration, in the encrypted registration file (never in
/// the profile): the RFC 7592 credentials, any `client_secret`, the metadata the provider holds
/// (a PUT repeats it whole) and the key the provider knows.
public struct RegistrationRecord: Sendable, Equatable {
    /// The dialect the provider speaks, remembered for `--show`, `--rotate-key` and `--delete`.
    public var dialect: RegistrationDialect
    /// The registration as last answered, credentials included.
    public var registration: ClientRegistration
    /// The key file the client signs with, and whether `register` made it (then `--delete` removes it).
    public var keyFile: String?
    /// True when `keyFile` was generated here.
    public var keyGenerated: Bool
    /// Set just before the RFC 7592 DELETE: a later `--delete` that finds the registration token
    /// dead knows the provider already deleted the client and only local state is left.
    public var deleting = false

    /// Makes a record.
    public init(dialect: RegistrationDialect, registration: ClientRegistration, keyFile: String?, keyGenerated: Bool) {
        self.dialect = dialect
        self.registration = registration
        self.keyFile = keyFile
        self.keyGenerated = keyGenerated
    }

    /// The RFC 7592 credentials; nil without management.
    public var management: RegistrationManagement? {
        guard let uri = registration.registrationClientURI, let token = registration.registrationAccessToken else { return nil }
        return RegistrationManagement(uri: uri, accessToken: token)
    }

    /// The record as the payload member `registration` of the token file format.
    var json: JSONObject {
        var o = JSONObject()
        o["dialect"] = .string(dialect.name)
        o["client_id"] = .string(registration.clientID)
        o.setIfPresent("client_secret", registration.clientSecret)
        o.setIfPresent("registration_access_token", registration.registrationAccessToken)
        o.setIfPresent("registration_client_uri", registration.registrationClientURI)
        // Stored in the RFC's spelling, whatever the dialect.
        o["metadata"] = .object(registration.metadata.json(in: .rfc7591))
        o.setIfPresent("key_file", keyFile)
        o["key_generated"] = .bool(keyGenerated)
        if deleting { o["deleting"] = .bool(true) }
        return o
    }

    /// Reads the member back.
    init(json: JSONObject) throws(DocumentError) {
        let m = JSONMembers(json, path: "registration")
        let name = try m.requiredString("dialect")
        guard let dialect = RegistrationDialect.named(name) else { throw .invalid(member: "registration.dialect", reason: "unknown dialect") }
        self.dialect = dialect
        registration = ClientRegistration(
            clientID: try m.requiredString("client_id"), clientSecret: try m.string("client_secret"),
            registrationAccessToken: try m.string("registration_access_token"),
            registrationClientURI: try m.string("registration_client_uri"),
            metadata: try ClientMetadata(json: try m.requiredObject("metadata").object, dialect: .rfc7591))
        keyFile = try m.string("key_file")
        keyGenerated = try m.bool("key_generated") ?? false
        deleting = try m.bool("deleting") ?? false
    }
}
