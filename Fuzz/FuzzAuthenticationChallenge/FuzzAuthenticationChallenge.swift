import Latchkey

// libFuzzer entry point for the `WWW-Authenticate` parser: a resource server's 401 header decides
// whether `AuthorizedTransport` refreshes, so any bytes must parse or be refused, never crash, and a
// parse must keep the type's promises.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzOne(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let text = String(decoding: UnsafeBufferPointer(start: data, count: size), as: UTF8.self)
    guard let challenges = AuthenticationChallenge.parse(text) else { return 0 }
    if text.utf8.count > 8192 { fatalError("an oversized header was parsed") }
    for challenge in challenges {
        if challenge.scheme.isEmpty { fatalError("a challenge without a scheme") }
        for p in challenge.parameters where p.name.utf8.contains(where: { $0 >= 65 && $0 <= 90 }) {
            fatalError("a parameter name was not lowercased")
        }
    }
    _ = AuthenticationChallenge.hasError("invalid_token", scheme: "Bearer", in: text)
    return 0
}
