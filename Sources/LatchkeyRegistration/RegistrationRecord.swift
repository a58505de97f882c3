import Latchkey
import LatchkeyJOSE

/// What a device keeps about its own registration, in the encrypted registration file (never in
/// the profile): the RFC 7592 credentials, any `client_secret`, the metadata the provider holds
/// (a PUT repeats it whole), the key the provider knows and every key file this program made.
public struct RegistrationRecord: Sendable, Equatable {
    /// The dialect the provider speaks, remembered for `--show`, `--rotate-key` and `--delete`.
    public var dialect: RegistrationDialect
    /// The registration as last answered, credentials included.
    public var registration: ClientRegistration
    /// The key file the client signs with.
    public var keyFile: String?
    /// Every key file `register` generated for this registration and has not deleted yet,
    /// including one written just before a stop; `--delete` removes them all, and a key the
    /// person brought is never among them.
    public var generatedKeys: [String]
    /// Set just before the RFC 7592 DELETE: a later `--delete` that finds the registration token
    /// refused asks the provider (GET) whether the client is gone before it believes it.
    public var deleting = false
    /// The profile as `register` wrote it, so a run stopped before the profile was written can
    /// still write it (`register` again) without a second registration.
    public var profileJSON: JSONObject?
    /// True from the record's write until the profile names this client: a stop in between is
    /// resolved by the profile (`DeviceRegistration`), to the old registration or the new one.
    public var pending = false
    /// The issuer, from the file (not part of the record's member).
    public var issuer: String?
    /// The record this one replaces (`--force`), kept while `pending`.
    var replaced: [RegistrationRecord] = []
    /// False for a record of an earlier release, which tracked only the first generated key.
    var tracksGeneratedKeys = true

    /// Makes a record; `keyGenerated` says `keyFile` was generated here.
    public init(dialect: RegistrationDialect, registration: ClientRegistration, keyFile: String?, keyGenerated: Bool) {
        self.dialect = dialect
        self.registration = registration
        self.keyFile = keyFile
        generatedKeys = keyGenerated ? keyFile.map { [$0] } ?? [] : []
    }

    /// True when the key file the client signs with was generated here (setting it adds or
    /// removes that file in `generatedKeys`).
    public var keyGenerated: Bool {
        get { keyFile.map(generatedKeys.contains) ?? false }
        set {
            guard let keyFile else { return }
            generatedKeys.removeAll { $0 == keyFile }
            if newValue { generatedKeys.append(keyFile) }
        }
    }

    /// The record `--force` replaced, while this one is pending.
    public var previous: RegistrationRecord? {
        get { replaced.first }
        set {
            replaced =
                newValue.map {
                    var old = $0; old.replaced = []; return [old]
                } ?? []
        }
    }

    /// The RFC 7592 credentials; nil without management.
    public var management: RegistrationManagement? {
        guard let uri = registration.registrationClientURI, let token = registration.registrationAccessToken else { return nil }
        return RegistrationManagement(uri: uri, accessToken: token)
    }

    /// The record as the payload member `registration` of the token file format.
    package var json: JSONObject {
        var o = JSONObject()
        o["dialect"] = .string(dialect.name)
        o["client_id"] = .string(registration.clientID)
        o.setIfPresent("client_secret", registration.clientSecret)
        o.setIfPresent("registration_access_token", registration.registrationAccessToken)
        o.setIfPresent("registration_client_uri", registration.registrationClientURI)
        // Stored in the RFC's spelling, whatever the dialect.
        o["metadata"] = .object(registration.metadata.json(in: .rfc7591))
        o.setIfPresent("key_file", keyFile)
        // Read by earlier releases, which know no `generated_keys`.
        o["key_generated"] = .bool(keyGenerated)
        if tracksGeneratedKeys { o["generated_keys"] = .array(generatedKeys.map(JSONValue.string)) }
        if deleting { o["deleting"] = .bool(true) }
        if let profileJSON { o["profile"] = .object(profileJSON) }
        if pending { o["pending"] = .bool(true) }
        if let previous { o["previous"] = .object(previous.json) }
        return o
    }

    /// Reads the member back.
    init(json: JSONObject) throws(DocumentError) {
        let m = JSONMembers(json, path: "registration")
        let name = try m.requiredString("dialect")
        guard let dialect = RegistrationDialect.named(name) else {
            throw .invalid(member: "registration.dialect", reason: "unknown dialect")
        }
        self.dialect = dialect
        registration = ClientRegistration(
            clientID: try m.requiredString("client_id"), clientSecret: try m.string("client_secret"),
            registrationAccessToken: try m.string("registration_access_token"),
            registrationClientURI: try m.string("registration_client_uri"),
            metadata: try ClientMetadata(json: try m.requiredObject("metadata").object, dialect: .rfc7591))
        keyFile = try m.string("key_file")
        if let tracked = try m.strings("generated_keys") {
            generatedKeys = tracked
        } else {
            tracksGeneratedKeys = false
            generatedKeys = (try m.bool("key_generated") ?? false) ? keyFile.map { [$0] } ?? [] : []
        }
        deleting = try m.bool("deleting") ?? false
        profileJSON = try m.object("profile")?.object
        pending = try m.bool("pending") ?? false
        if let old = try m.object("previous") { previous = try RegistrationRecord(json: old.object) }
    }
}
