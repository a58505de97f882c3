/// One row of a document codec's member table: the JSON name and how to read and set the member.
///
/// Closures rather than key paths: a key-path table is built at run time from mangled type names
/// (`swift_getKeyPath`), which made up about half of a cached `latchkey token` that only reads the
/// profile and the token file; closures cost nothing until they are called.
struct DocumentMember<Root, Value>: Sendable {
    let name: String
    let get: @Sendable (Root) -> Value?
    let set: @Sendable (inout Root, Value?) -> Void

    init(_ name: String, _ get: @escaping @Sendable (Root) -> Value?, _ set: @escaping @Sendable (inout Root, Value?) -> Void) {
        self.name = name
        self.get = get
        self.set = set
    }
}
