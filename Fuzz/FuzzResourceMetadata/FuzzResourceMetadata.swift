import Latchkey
import LatchkeyHTTP
import LatchkeyJOSE

// libFuzzer entry point for RFC 9728 protected resource metadata and the RFC 9470 challenge: both
// come from a resource server the client has no reason to trust yet. The input is split at the
// first NUL: a JSON document, then a `WWW-Authenticate` header. Any bytes must be read or refused,
// never crash, and a document read must keep the type's promises: a `resource` that is a usable
// identifier covering itself, lists and strings within their bounds, a choice of authorization
// server that never picks one of several alone; a step-up read must hold only what may be sent on
// (printable acr values, a bounded max_age).
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzOne(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let bytes = Array(UnsafeBufferPointer(start: data, count: size))
    let split = bytes.firstIndex(of: 0) ?? bytes.count
    let document = Array(bytes[..<split])
    let header = split < bytes.count ? String(decoding: bytes[(split + 1)...], as: UTF8.self) : ""
    if let object = try? JSONParser().parseObject(document), let m = try? ProtectedResourceMetadata(json: object) {
        guard let identifier = m.identifier else { fatalError("a resource that is not an identifier: \(m.resource.debugDescription)") }
        if !identifier.covers(identifier) { fatalError("a resource that does not cover itself") }
        if identifier.wellKnownURL() == nil { fatalError("no well-known URL for \(identifier)") }
        let lists = [m.authorizationServers, m.scopesSupported ?? [], m.bearerMethodsSupported ?? [], m.dpopSigningAlgValuesSupported ?? []]
        for list in lists where list.count > ProtectedResourceMetadata.maxListCount { fatalError("an unbounded list") }
        for s in lists.joined() where s.utf8.count > ProtectedResourceMetadata.maxStringBytes { fatalError("an unbounded string") }
        if m.authorizationServers.count > 1, case .chosen = m.authorizationServer() { fatalError("chose one of several alone") }
        if m.authorizationServers.count == 1, m.authorizationServer() != .chosen(m.authorizationServers[0]) { fatalError("lost the one") }
    }
    if let challenge = ResourceChallenge(wwwAuthenticate: header), let stepUp = challenge.stepUp {
        if challenge.error != "insufficient_user_authentication" { fatalError("a step-up without its error") }
        if let age = stepUp.maxAge, age < 0 || age > ResourceChallenge.maxMaxAge { fatalError("max_age out of range: \(age)") }
        for value in stepUp.acrValues ?? [] where value.isEmpty || !value.utf8.allSatisfy({ $0 > 0x20 && $0 < 0x7F }) {
            fatalError("an acr value that cannot be sent: \(value.debugDescription)")
        }
        for (name, value) in stepUp.authentication.parameters where RequestParameter.usable(name: name, value: value) == nil {
            fatalError("a parameter the request cannot carry: \(name)")
        }
    }
    return 0
}
