/// A JSON document as a value, kept exact: numbers keep their source text so that large integers
/// (`exp`, `iat`) and claims are never rounded, and object members keep their order for printing.
public enum JSONValue: Sendable, Equatable, Hashable {
    case null
    case bool(Bool)
    /// The number exactly as written in the source (already validated against the JSON grammar).
    case number(String)
    case string(String)
    case array([JSONValue])
    /// Members in source order; keys are unique (the parser rejects duplicates).
    case object(JSONObject)

    /// The string payload, or nil.
    public var stringValue: String? { if case .string(let s) = self { return s }; return nil }
    /// The boolean payload, or nil.
    public var boolValue: Bool? { if case .bool(let b) = self { return b }; return nil }
    /// The array payload, or nil.
    public var arrayValue: [JSONValue]? { if case .array(let a) = self { return a }; return nil }
    /// The object payload, or nil.
    public var objectValue: JSONObject? { if case .object(let o) = self { return o }; return nil }
    /// The number as a Double, or nil.
    public var doubleValue: Double? { if case .number(let n) = self { return Double(n) }; return nil }
    /// The number as an Int64 when it is integral and in range (`1.0` and `1e3` count), or nil.
    public var int64Value: Int64? {
        guard case .number(let n) = self else { return nil }
        if let i = Int64(n) { return i }
        guard let d = Double(n), d.rounded() == d, abs(d) < 9.2e18 else { return nil }
        return Int64(d)
    }
    /// Member lookup on objects; nil for anything else.
    public subscript(key: String) -> JSONValue? { objectValue?[key] }

    /// Makes a number value from an integer.
    public static func integer(_ i: Int64) -> JSONValue { .number(String(i)) }
}

/// An ordered JSON object with unique keys.
public struct JSONObject: Sendable, Equatable, Hashable, Sequence {
    /// Members in insertion order.
    public private(set) var members: [(key: String, value: JSONValue)] = []

    /// An empty object.
    public init() {}
    /// An object from key/value pairs; a later duplicate key replaces the earlier value.
    public init(_ pairs: [(String, JSONValue)]) { for (k, v) in pairs { self[k] = v } }

    /// The value for `key`, or nil; assigning nil removes the member.
    public subscript(key: String) -> JSONValue? {
        get { members.first { Self.same($0.key, key) }?.value }
        set {
            if let i = members.firstIndex(where: { Self.same($0.key, key) }) {
                if let newValue { members[i].value = newValue } else { members.remove(at: i) }
            } else if let newValue {
                members.append((key, newValue))
            }
        }
    }
    /// Key equality with the byte count compared first: most keys differ in length, and the count
    /// of a native string is stored, while `==` on two different strings goes to the general
    /// comparison (a lookup runs for every member a document codec reads).
    private static func same(_ a: String, _ b: String) -> Bool { a.utf8.count == b.utf8.count && a == b }

    /// Appends a member the caller knows is new (the parser, which has just looked for it). The
    /// first member makes room for eight: a document's objects then grow without reallocating at
    /// 1, 2 and 4 members, and an empty object (`{}`) still allocates nothing.
    mutating func appendNew(_ key: String, _ value: JSONValue) {
        if members.isEmpty { members.reserveCapacity(8) }
        members.append((key, value))
    }
    /// The keys in order.
    public var keys: [String] { members.map(\.key) }
    /// Number of members.
    public var count: Int { members.count }
    /// Iterates members in order.
    public func makeIterator() -> IndexingIterator<[(key: String, value: JSONValue)]> { members.makeIterator() }

    public static func == (a: JSONObject, b: JSONObject) -> Bool {
        a.members.count == b.members.count && zip(a.members, b.members).allSatisfy { $0.key == $1.key && $0.value == $1.value }
    }
    public func hash(into h: inout Hasher) { for m in members { h.combine(m.key); h.combine(m.value) } }
}
