import LatchkeyJOSE

/// Typed reads of one JSON object's members, the one reader behind every document Latchkey keeps
/// or prints (token-file payload, profile file, provider metadata). A member that is missing or
/// `null` reads as nil, as a synthesised `Decodable` would; a wrong type is a `DocumentError`
/// naming the member (prefixed with `path`, e.g. `metadata.jwks_uri`).
package struct JSONMembers {
    package let object: JSONObject
    let path: String

    package init(_ object: JSONObject, path: String = "") {
        self.object = object
        self.path = path
    }

    private func name(_ key: String) -> String { path.isEmpty ? key : path + "." + key }

    /// The member's value; nil when missing or `null`.
    func value(_ key: String) -> JSONValue? {
        guard let v = object[key], v != .null else { return nil }
        return v
    }

    package func string(_ key: String) throws(DocumentError) -> String? {
        guard let v = value(key) else { return nil }
        guard let s = v.stringValue else { throw .wrongType(member: name(key), expected: "a string") }
        return s
    }

    package func requiredString(_ key: String) throws(DocumentError) -> String {
        guard let s = try string(key) else { throw .missing(member: name(key)) }
        return s
    }

    package func strings(_ key: String) throws(DocumentError) -> [String]? {
        guard let v = value(key) else { return nil }
        guard let items = v.arrayValue else { throw .wrongType(member: name(key), expected: "an array of strings") }
        var out: [String] = []
        out.reserveCapacity(items.count)
        for item in items {
            guard let s = item.stringValue else { throw .wrongType(member: name(key), expected: "an array of strings") }
            out.append(s)
        }
        return out
    }

    package func bool(_ key: String) throws(DocumentError) -> Bool? {
        guard let v = value(key) else { return nil }
        guard let b = v.boolValue else { throw .wrongType(member: name(key), expected: "true or false") }
        return b
    }

    func number(_ key: String) throws(DocumentError) -> Double? {
        guard let v = value(key) else { return nil }
        guard let d = v.doubleValue, d.isFinite else { throw .wrongType(member: name(key), expected: "a number") }
        return d
    }

    package func object(_ key: String) throws(DocumentError) -> JSONMembers? {
        guard let v = value(key) else { return nil }
        guard let o = v.objectValue else { throw .wrongType(member: name(key), expected: "an object") }
        return JSONMembers(o, path: name(key))
    }

    package func requiredObject(_ key: String) throws(DocumentError) -> JSONMembers {
        guard let o = try object(key) else { throw .missing(member: name(key)) }
        return o
    }

    /// A raw-valued enum member (`auth_method`, `pkce`).
    func enumeration<E: RawRepresentable>(_ key: String, _ type: E.Type) throws(DocumentError) -> E? where E.RawValue == String {
        guard let raw = try string(key) else { return nil }
        guard let e = E(rawValue: raw) else { throw .invalid(member: name(key), reason: "unknown value \"\(raw)\"") }
        return e
    }
}

extension JSONObject {
    /// Sets `key` to `value` when there is one; leaves it out otherwise (the written form of nil).
    package mutating func setIfPresent(_ key: String, _ value: String?) { if let value { self[key] = .string(value) } }
    mutating func setIfPresent(_ key: String, _ value: [String]?) { if let value { self[key] = .array(value.map(JSONValue.string)) } }
    mutating func setIfPresent(_ key: String, _ value: Bool?) { if let value { self[key] = .bool(value) } }
}

extension JSONValue {
    /// A finite Double as a JSON number (seconds since the epoch, leeway): integral values without
    /// a fraction, others in Swift's shortest round-tripping form.
    static func seconds(_ d: Double) -> JSONValue {
        if d.rounded() == d, abs(d) < 9.0e15 { return .number(String(Int64(d))) }
        return .number(String(d))
    }
}
