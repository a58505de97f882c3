/// The protected header of a JWS, with the members Latchkey acts on pulled out. `jku`, `x5u`, `x5c` and
/// `jwk` are kept in `json` but never used as a key source: keys come only from the issuer's JWKS.
public struct JOSEHeader: Sendable {
    /// The `alg` member exactly as written.
    public let alg: String
    /// The `kid` member, if any.
    public let kid: String?
    /// The `typ` member, if any.
    public let typ: String?
    /// The whole header.
    public let json: JSONObject

    /// Parses and checks a decoded protected header: `alg` required and not `none`, `crit` refused
    /// (no extension is understood, so `b64:false` tokens are refused too), string-typed `kid`/`typ`.
    public init(json: JSONObject) throws(JOSEError) {
        guard let algValue = json["alg"] else { throw .malformed("header has no \"alg\"") }
        guard let alg = algValue.stringValue else { throw .malformed("header \"alg\" is not a string") }
        // "none" in any spelling means unsigned; never accepted (RFC 8725 §3.1).
        if alg.utf8.count == 4, alg.lowercased() == "none" { throw .unsupportedAlgorithm(alg) }
        if let crit = json["crit"] {
            // RFC 7515 §4.1.11: a non-empty array of names; every name must be understood. None are.
            guard let names = crit.arrayValue, !names.isEmpty else { throw .malformed("header \"crit\" must be a non-empty array") }
            var list: [String] = []
            for n in names {
                guard let s = n.stringValue else { throw .malformed("header \"crit\" holds a non-string") }
                list.append(s)
            }
            throw .unsupportedCriticalHeader(list)
        }
        // RFC 7797: b64 must be listed in crit; a bare b64:false would change what was signed.
        if let b64 = json["b64"], b64 != .bool(true) { throw .unsupportedCriticalHeader(["b64"]) }
        var kid: String?
        if let k = json["kid"] {
            guard let s = k.stringValue else { throw .malformed("header \"kid\" is not a string") }
            kid = s
        }
        var typ: String?
        if let t = json["typ"] {
            guard let s = t.stringValue else { throw .malformed("header \"typ\" is not a string") }
            typ = s
        }
        self.alg = alg
        self.kid = kid
        self.typ = typ
        self.json = json
    }
}
