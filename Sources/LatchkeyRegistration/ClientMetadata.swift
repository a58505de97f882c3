import Latchkey
import LatchkeyJOSE

/// RFC 7591 §2 client metadata: the one codec for what a registration sends, and what a provider
/// echoes or stores. Values are held in the RFC's spelling (the device grant as its RFC 8628
/// URN, `token_endpoint_auth_signing_alg`); `json(in:)` and `init(json:dialect:)` translate to and
/// from a provider's `RegistrationDialect`, so a value read back in the dialect it was written in
/// is the value written (Tests/LatchkeyTests/Registration/RegistrationCodecTests.swift).
public struct ClientMetadata: Sendable, Equatable {
    /// `client_name`.
    public var clientName: String?
    /// `redirect_uris`.
    public var redirectURIs: [String]?
    /// `grant_types`, RFC names.
    public var grantTypes: [String]?
    /// `response_types`.
    public var responseTypes: [String]?
    /// `token_endpoint_auth_method`.
    public var tokenEndpointAuthMethod: String?
    /// `token_endpoint_auth_signing_alg`.
    public var tokenEndpointAuthSigningAlg: String?
    /// `jwks`: the client's public keys, `{"keys": [...]}`.
    public var jwks: JSONObject?
    /// `jwks_uri`.
    public var jwksURI: String?
    /// `scope`, space-separated.
    public var scope: String?
    /// `software_statement` (a JWT; sent as given).
    public var softwareStatement: String?
    /// Members this codec does not model, in the order received, so a PUT can repeat them
    /// (RFC 7592 §2.2). Never a credential: those are `ClientRegistration`'s.
    public var otherMembers: JSONObject = JSONObject()

    /// Metadata with nothing set.
    public init() {}

    /// Members of a registration answer that are not metadata (RFC 7591 §3.2.1, RFC 7592 §3),
    /// and a dialect's own marker: never copied into `otherMembers`.
    static let responseMembers: Set<String> = [
        "client_id", "client_secret", "client_id_issued_at", "client_secret_expires_at",
        "registration_access_token", "registration_client_uri", "client_confidential"
    ]

    private static var stringMembers: [(String, WritableKeyPath<ClientMetadata, String?>)] {
        [
            ("client_name", \.clientName), ("token_endpoint_auth_method", \.tokenEndpointAuthMethod),
            ("jwks_uri", \.jwksURI), ("scope", \.scope), ("software_statement", \.softwareStatement)
        ]
    }
    private static var listMembers: [(String, WritableKeyPath<ClientMetadata, [String]?>)] {
        [
            ("redirect_uris", \.redirectURIs), ("grant_types", \.grantTypes), ("response_types", \.responseTypes)
        ]
    }

    /// The document in `dialect`'s spelling.
    public func json(in dialect: RegistrationDialect) -> JSONObject {
        var o = JSONObject()
        for (name, path) in Self.stringMembers { o.setIfPresent(name, self[keyPath: path]) }
        for (name, path) in Self.listMembers {
            guard var values = self[keyPath: path] else { continue }
            if name == "grant_types" {
                values = values.map { $0 == RegistrationDialect.deviceGrantURN ? dialect.deviceGrant : $0 }
                values += dialect.extraGrantTypes.filter { !values.contains($0) }
            }
            o[name] = .array(values.map(JSONValue.string))
        }
        o.setIfPresent(dialect.signingAlgorithmMember, tokenEndpointAuthSigningAlg)
        if let jwks { o["jwks"] = .object(jwks) }
        if dialect.marksPublicClients, let method = tokenEndpointAuthMethod {
            o["client_confidential"] = .bool(method != "none")
        }
        for member in otherMembers where o[member.key] == nil { o[member.key] = member.value }
        return o
    }

    /// Reads a document in `dialect`'s spelling. A modelled member of the wrong type is an error
    /// naming it; `token_endpoint_auth_method` may also be a one-element list (Glewlwyd's GET).
    public init(json: JSONObject, dialect: RegistrationDialect) throws(DocumentError) {
        let m = JSONMembers(json)
        var known: Set<String> = Self.responseMembers.union(["jwks", dialect.signingAlgorithmMember])
        for (name, path) in Self.stringMembers {
            known.insert(name)
            if name == "token_endpoint_auth_method", let list = json[name]?.arrayValue {
                guard list.count == 1, let only = list[0].stringValue else {
                    throw .wrongType(member: name, expected: "a string or a list of one string")
                }
                self[keyPath: path] = only
                continue
            }
            self[keyPath: path] = try m.string(name)
        }
        for (name, path) in Self.listMembers {
            known.insert(name)
            guard var values = try m.strings(name) else { continue }
            if name == "grant_types" {
                values = values.filter { !dialect.extraGrantTypes.contains($0) }
                    .map { $0 == dialect.deviceGrant ? RegistrationDialect.deviceGrantURN : $0 }
            }
            self[keyPath: path] = values
        }
        tokenEndpointAuthSigningAlg = try m.string(dialect.signingAlgorithmMember)
        if let keys = json["jwks"] {
            guard let object = keys.objectValue else { throw .wrongType(member: "jwks", expected: "an object") }
            jwks = object
        }
        for member in json where !known.contains(member.key) { otherMembers[member.key] = member.value }
    }
}
