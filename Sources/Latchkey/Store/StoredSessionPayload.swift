import LatchkeyCrypto
import LatchkeyHTTP
import LatchkeyJOSE

/// The token file's JSON payload: the one codec for a `StoredSession`, writing and reading with the
/// project's strict JSON writer and parser.
///
/// The member names are those the first release wrote with `JSONEncoder` (`clientID`,
/// `accessToken`, …, metadata under its OAuth names), nil optionals left out, times as seconds
/// since 1970, so every file written before opens unchanged. Reading is what a synthesised
/// `Decodable` did: unknown members ignored, a missing or `null` optional is nil, a wrong type is
/// an error. Why not `JSONDecoder`: this runs on every `latchkey token`, and its Codable path was
/// half the instructions of a cached call (docs/performance.md).
enum StoredSessionPayload {
    /// The payload bytes for `session`.
    static func encode(_ session: StoredSession) -> [UInt8] {
        var o = JSONObject()
        o["profile"] = .string(session.profile)
        o["issuer"] = .string(session.issuer)
        o["clientID"] = .string(session.clientID)
        o["token"] = .object(token(session.token))
        o.setIfPresent("subject", session.subject)
        o.setIfPresent("idTokenClaimsJSON", session.idTokenClaimsJSON)
        o["metadata"] = .object(session.metadata.json)
        o["createdAt"] = .seconds(session.createdAt.timeIntervalSince1970)
        o["updatedAt"] = .seconds(session.updatedAt.timeIntervalSince1970)
        if let dpop = session.dpop { o["dpop"] = .object(binding(dpop)) }
        // Files without it (written before client credentials) read as `.authorization`.
        o["grant"] = .string(session.grant.rawValue)
        if let registration = session.registration { o["registration"] = .object(registration) }
        if !session.exchanges.isEmpty { o["exchanges"] = .array(session.exchanges.entries.map { .object(exchange($0)) }) }
        return Array(JSONValue.object(o).jsonText.utf8)
    }

    /// Decodes the payload bytes.
    static func decode(_ bytes: [UInt8]) throws -> StoredSession {
        let root = JSONMembers(try JSONParser().parseObject(bytes))
        let t = try root.requiredObject("token")
        let token = Token(
            accessToken: try t.requiredString("accessToken"), tokenType: try t.requiredString("tokenType"),
            refreshToken: try t.string("refreshToken"), expiresAt: try t.number("expiresAt").map(Timestamp.init),
            scope: try t.string("scope"), idToken: try t.string("idToken"))
        var session = StoredSession(
            profile: try root.requiredString("profile"),
            issuer: try root.requiredString("issuer"),
            clientID: try root.requiredString("clientID"),
            token: token,
            subject: try root.string("subject"),
            idTokenClaimsJSON: try root.string("idTokenClaimsJSON"),
            metadata: try ProviderMetadata(json: try root.requiredObject("metadata").object),
            createdAt: try time(root, "createdAt"),
            updatedAt: try time(root, "updatedAt"),
            dpop: try root.object("dpop").map(binding))
        if let grant = try root.enumeration("grant", SessionGrant.self) { session.grant = grant }
        if let registration = try root.object("registration") { session.registration = registration.object }
        if let exchanges = root.value("exchanges") {
            guard let items = exchanges.arrayValue else { throw DocumentError.wrongType(member: "exchanges", expected: "an array") }
            session.exchanges = ExchangeCache(
                entries: try items.map { value throws -> ExchangeCache.Entry in
                    guard case .object(let o) = value else { throw DocumentError.wrongType(member: "exchanges", expected: "objects") }
                    return try exchange(JSONMembers(o, path: "exchanges"))
                })
        }
        return session
    }

    /// `{"key": base64url(scalar), "nonces": {origin: nonce}}`, the nonces oldest first (read back
    /// in the file's order, the last `RecentNonces.limit` kept). The scalar's base64url text is a
    /// copy of the secret in a Swift string; it lives only as long as this encode or decode.
    private static func binding(_ b: DPoPBinding) -> JSONObject {
        var o = JSONObject()
        o["key"] = .string(b.privateScalar.withUnsafeBytes { Base64URL.encode($0) })
        var nonces = JSONObject()
        for entry in b.nonces.entries { nonces[entry.origin] = .string(entry.nonce) }
        o["nonces"] = .object(nonces)
        return o
    }

    private static func binding(_ m: JSONMembers) throws -> DPoPBinding {
        var scalar = try Base64URL.decode(try m.requiredString("key"))
        defer { for i in scalar.indices { scalar[i] = 0 } }
        guard scalar.count == 32 else { throw DocumentError.invalid(member: "dpop.key", reason: "must be a 32-byte P-256 scalar") }
        var nonces = RecentNonces()
        if let n = try m.object("nonces") {
            for (origin, value) in n.object { if let v = value.stringValue { nonces.remember(v, for: origin) } }
        }
        return DPoPBinding(privateScalar: SecretBytes(scalar), nonces: nonces)
    }

    /// One cached exchange: `{"audiences": […], "resources": […], "scope": "…", "requestedType":
    /// "…", "token": "…", "issuedTokenType": "…", "tokenType": "…", "expiresAt": s, "grantedScope":
    /// "…", "audience": […]}`.
    private static func exchange(_ e: ExchangeCache.Entry) -> JSONObject {
        var o = JSONObject()
        o["audiences"] = .array(e.key.audiences.map(JSONValue.string))
        o["resources"] = .array(e.key.resources.map(JSONValue.string))
        o["scope"] = .string(e.key.scope)
        o["requestedType"] = .string(e.key.requestedType)
        o["token"] = .string(e.token.token)
        o["issuedTokenType"] = .string(e.token.issuedTokenType)
        o["tokenType"] = .string(e.token.tokenType)
        if let at = e.token.expiresAt { o["expiresAt"] = .seconds(at.timeIntervalSince1970) }
        o.setIfPresent("grantedScope", e.token.scope)
        o["audience"] = .array(e.token.audience.map(JSONValue.string))
        return o
    }

    private static func exchange(_ m: JSONMembers) throws -> ExchangeCache.Entry {
        func strings(_ key: String) throws -> [String] { try m.strings(key) ?? [] }
        let key = ExchangeCacheKey(
            audiences: try strings("audiences"), resources: try strings("resources"), scope: try m.requiredString("scope"),
            requestedType: try m.requiredString("requestedType"))
        let token = ExchangedToken(
            token: try m.requiredString("token"), issuedTokenType: try m.requiredString("issuedTokenType"),
            tokenType: try m.requiredString("tokenType"), expiresAt: try m.number("expiresAt").map(Timestamp.init),
            scope: try m.string("grantedScope"), audience: try strings("audience"))
        return ExchangeCache.Entry(key: key, token: token)
    }

    private static func token(_ t: Token) -> JSONObject {
        var o = JSONObject()
        o["accessToken"] = .string(t.accessToken)
        o["tokenType"] = .string(t.tokenType)
        o.setIfPresent("refreshToken", t.refreshToken)
        if let e = t.expiresAt { o["expiresAt"] = .seconds(e.timeIntervalSince1970) }
        o.setIfPresent("scope", t.scope)
        o.setIfPresent("idToken", t.idToken)
        return o
    }

    private static func time(_ m: JSONMembers, _ key: String) throws(DocumentError) -> Timestamp {
        guard let seconds = try m.number(key) else { throw .missing(member: key) }
        return Timestamp(timeIntervalSince1970: seconds)
    }
}
