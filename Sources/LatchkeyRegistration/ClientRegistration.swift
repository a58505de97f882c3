import Latchkey
import LatchkeyHTTP
import LatchkeyJOSE

/// A registration as the provider answered it (RFC 7591 §3.2.1, RFC 7592 §3): the client_id,
/// the credentials it came with, and the metadata. The credentials are secrets: they live in the
/// encrypted registration file (`RegistrationRecord`), never in the profile, a log or an error.
public struct ClientRegistration: Sendable, Equatable {
    /// `client_id`.
    public var clientID: String
    /// `client_secret`, when the provider issued one.
    public var clientSecret: String?
    /// `registration_access_token` (RFC 7592), when management is on.
    public var registrationAccessToken: String?
    /// `registration_client_uri` (RFC 7592), when management is on.
    public var registrationClientURI: String?
    /// The metadata the answer carries (echoed or stored, depending on the provider).
    public var metadata: ClientMetadata

    /// Makes a value from parts.
    public init(
        clientID: String, clientSecret: String? = nil, registrationAccessToken: String? = nil,
        registrationClientURI: String? = nil, metadata: ClientMetadata = ClientMetadata()
    ) {
        self.clientID = clientID
        self.clientSecret = clientSecret
        self.registrationAccessToken = registrationAccessToken
        self.registrationClientURI = registrationClientURI
        self.metadata = metadata
    }

    /// Reads an answer; `.missingClientID` without a non-empty `client_id`. The `client_id` and
    /// the credentials must be RFC 6749 VSCHAR (printable ASCII): the client_id is printed and
    /// sent in assertions, the token goes in an `Authorization` header, and a control character
    /// in either is a provider writing to the terminal or into the request.
    init(json: JSONObject, dialect: RegistrationDialect, operation: RegistrationOperation) throws(RegistrationError) {
        let m = JSONMembers(json)
        do {
            guard let id = try m.string("client_id"), !id.isEmpty else { throw RegistrationError.missingClientID }
            guard Self.isVSCHAR(id) else {
                throw RegistrationError.malformedAnswer(operation: operation, reason: "client_id is not VSCHAR")
            }
            clientID = id
            clientSecret = try m.string("client_secret")
            registrationAccessToken = try m.string("registration_access_token")
            for (name, value) in [("client_secret", clientSecret), ("registration_access_token", registrationAccessToken)] {
                guard let value else { continue }
                guard !value.isEmpty, Self.isVSCHAR(value) else {
                    throw RegistrationError.malformedAnswer(operation: operation, reason: name + " is not VSCHAR")
                }
            }
            registrationClientURI = try m.string("registration_client_uri")
            metadata = try ClientMetadata(json: json, dialect: dialect)
        } catch let error as RegistrationError {
            throw error
        } catch {
            throw .malformedAnswer(operation: operation, reason: "\(error)")
        }
    }

    /// RFC 6749 Appendix A: VSCHAR = %x20-7E.
    static func isVSCHAR(_ text: String) -> Bool {
        text.utf8.allSatisfy(CharacterClass.isPrintable)
    }

    /// The registration as JSON for display: the metadata and the client_id, the credentials
    /// replaced by `"[redacted]"` (`register --show`).
    public func redactedJSON(in dialect: RegistrationDialect) -> JSONObject {
        var o = JSONObject()
        o["client_id"] = .string(clientID)
        for member in metadata.json(in: dialect) { o[member.key] = member.value }
        if clientSecret != nil { o["client_secret"] = "[redacted]" }
        if registrationAccessToken != nil { o["registration_access_token"] = "[redacted]" }
        return o
    }
}
