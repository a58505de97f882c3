/// A JSON Web Key Set (RFC 7517 §5). One bad key never makes the whole set unusable: it is skipped and
/// the reason recorded, because issuers publish keys of types Latchkey does not use (encryption keys,
/// OKP) next to their signing keys.
public struct JWKSet: Sendable {
    /// Most keys read from one document; a set larger than this is hostile or broken.
    public static let maxKeys = 256

    /// The usable-looking keys, in document order.
    public let keys: [JWK]
    /// Why each skipped entry was skipped, e.g. `key 2 (kid "enc-1"): unsupported key type "oct"`.
    public let skipped: [String]

    /// Parses a JWK Set document: a JSON object with a `keys` array.
    public init(data: [UInt8]) throws(JOSEError) {
        let top: JSONObject
        do { top = try JSONParser().parseObject(data) } catch { throw .malformed("JWK set: \(error)") }
        guard let list = top["keys"] else { throw .malformed("JWK set has no \"keys\" member") }
        guard let entries = list.arrayValue else { throw .malformed("JWK set \"keys\" is not an array") }
        var keys: [JWK] = []
        var skipped: [String] = []
        for (i, entry) in entries.enumerated() {
            if i >= JWKSet.maxKeys {
                skipped.append("keys \(i)…\(entries.count - 1): more than \(JWKSet.maxKeys) keys")
                break
            }
            guard let obj = entry.objectValue else { skipped.append("key \(i): not a JSON object"); continue }
            do {
                keys.append(try JWK(json: obj))
            } catch {
                let kid = obj["kid"]?.stringValue.map { " (kid \"\($0)\")" } ?? ""
                skipped.append("key \(i)\(kid): \(error.description)")
            }
        }
        self.keys = keys
        self.skipped = skipped
    }

    /// A set made of already-parsed keys.
    public init(keys: [JWK]) {
        self.keys = keys
        self.skipped = []
    }

    /// The first key whose `kid` is `withID`.
    public func key(withID id: String) -> JWK? { keys.first { $0.kid == id } }
}
