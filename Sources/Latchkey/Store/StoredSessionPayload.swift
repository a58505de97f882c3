import FoundationEssentials
import LatchkeyJOSE

/// Reads the token file's JSON payload (what `TokenFile.payloadEncoder` writes) into a
/// `StoredSession` with the strict `JSONParser` instead of `JSONDecoder`.
///
/// Why: this runs on every `latchkey token`. In the static binary `JSONDecoder`'s Codable path
/// instantiates generic metadata and scans every protocol conformance record on first use; that
/// was half of the instructions of a cached `token` call (docs/performance.md "Command line").
/// Same rules as the synthesised `Decodable`: the same key names, unknown members ignored, a
/// missing or `null` optional is nil, a wrong type is an error, dates are seconds since 1970.
enum StoredSessionPayload {
    /// A member that is missing, null where a value is required, or of the wrong type.
    struct Mismatch: Error {}

    /// Decodes the payload bytes.
    static func decode(_ bytes: [UInt8]) throws -> StoredSession {
        let root = try JSONParser().parseObject(bytes)
        return StoredSession(
            profile: try string(root, "profile"),
            issuer: try string(root, "issuer"),
            clientID: try string(root, "clientID"),
            token: try token(try object(root, "token")),
            subject: try optionalString(root, "subject"),
            idTokenClaimsJSON: try optionalString(root, "idTokenClaimsJSON"),
            metadata: try metadata(try object(root, "metadata")),
            createdAt: try date(root, "createdAt"),
            updatedAt: try date(root, "updatedAt"))
    }

    private static func token(_ o: JSONObject) throws -> Token {
        Token(accessToken: try string(o, "accessToken"), tokenType: try string(o, "tokenType"),
              refreshToken: try optionalString(o, "refreshToken"), expiresAt: try optionalDate(o, "expiresAt"),
              scope: try optionalString(o, "scope"), idToken: try optionalString(o, "idToken"))
    }

    private static func metadata(_ o: JSONObject) throws -> ProviderMetadata {
        var m = ProviderMetadata(issuer: try string(o, "issuer"))
        m.authorizationEndpoint = try optionalString(o, "authorization_endpoint")
        m.tokenEndpoint = try optionalString(o, "token_endpoint")
        m.deviceAuthorizationEndpoint = try optionalString(o, "device_authorization_endpoint")
        m.revocationEndpoint = try optionalString(o, "revocation_endpoint")
        m.jwksURI = try optionalString(o, "jwks_uri")
        m.userinfoEndpoint = try optionalString(o, "userinfo_endpoint")
        m.idTokenSigningAlgValuesSupported = try optionalStrings(o, "id_token_signing_alg_values_supported")
        m.codeChallengeMethodsSupported = try optionalStrings(o, "code_challenge_methods_supported")
        m.scopesSupported = try optionalStrings(o, "scopes_supported")
        m.grantTypesSupported = try optionalStrings(o, "grant_types_supported")
        m.tokenEndpointAuthMethodsSupported = try optionalStrings(o, "token_endpoint_auth_methods_supported")
        if let value = present(o, "authorization_response_iss_parameter_supported") {
            guard let flag = value.boolValue else { throw Mismatch() }
            m.authorizationResponseIssParameterSupported = flag
        }
        return m
    }

    /// The member's value, or nil when it is missing or `null` (as `decodeIfPresent` treats both).
    private static func present(_ o: JSONObject, _ key: String) -> JSONValue? {
        guard let value = o[key], value != .null else { return nil }
        return value
    }

    private static func object(_ o: JSONObject, _ key: String) throws -> JSONObject {
        guard let value = o[key]?.objectValue else { throw Mismatch() }
        return value
    }

    private static func string(_ o: JSONObject, _ key: String) throws -> String {
        guard let value = o[key]?.stringValue else { throw Mismatch() }
        return value
    }

    private static func optionalString(_ o: JSONObject, _ key: String) throws -> String? {
        guard let value = present(o, key) else { return nil }
        guard let text = value.stringValue else { throw Mismatch() }
        return text
    }

    private static func optionalStrings(_ o: JSONObject, _ key: String) throws -> [String]? {
        guard let value = present(o, key) else { return nil }
        guard let items = value.arrayValue else { throw Mismatch() }
        return try items.map { item in
            guard let text = item.stringValue else { throw Mismatch() }
            return text
        }
    }

    private static func date(_ o: JSONObject, _ key: String) throws -> Date {
        guard let value = o[key] else { throw Mismatch() }
        return try seconds(value)
    }

    private static func optionalDate(_ o: JSONObject, _ key: String) throws -> Date? {
        guard let value = present(o, key) else { return nil }
        return try seconds(value)
    }

    /// `.secondsSince1970`: a finite JSON number.
    private static func seconds(_ value: JSONValue) throws -> Date {
        guard let seconds = value.doubleValue, seconds.isFinite else { throw Mismatch() }
        return Date(timeIntervalSince1970: seconds)
    }
}
