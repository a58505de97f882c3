import Latchkey
import LatchkeyHTTP

// libFuzzer entry point for the `WWW-Authenticate` parser: a resource server's 401 header decides
// whether `AuthorizedTransport` refreshes, so any bytes must parse or be refused, never crash, and a
// parse must keep the type's promises: RFC 9110 token characters in schemes and parameter names
// (names lowercased), no CR or LF in a value, and what it read written back as a header (below)
// must parse to the same challenges.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzOne(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let text = String(decoding: UnsafeBufferPointer(start: data, count: size), as: UTF8.self)
    guard let challenges = AuthenticationChallenge.parse(text) else { return 0 }
    if text.utf8.count > 8192 { fatalError("an oversized header was parsed") }
    for challenge in challenges {
        if challenge.scheme.isEmpty { fatalError("a challenge without a scheme") }
        if !challenge.scheme.utf8.allSatisfy(HeaderName.isTokenCharacter) {
            fatalError("a scheme that is not a token: \(challenge.scheme.debugDescription)")
        }
        for p in challenge.parameters {
            if p.name.isEmpty || !p.name.utf8.allSatisfy(HeaderName.isTokenCharacter) {
                fatalError("a parameter name that is not a token: \(p.name.debugDescription)")
            }
            if p.name.utf8.contains(where: { $0 >= 65 && $0 <= 90 }) { fatalError("a parameter name was not lowercased") }
            if p.value.utf8.contains(where: { $0 == 0x0D || $0 == 0x0A }) { fatalError("CR or LF in a parameter value") }
        }
    }
    let written = serialised(challenges)
    guard let again = AuthenticationChallenge.parse(written) else { fatalError("own serialisation refused: \(written.debugDescription)") }
    if again != challenges { fatalError("parse → serialise → parse changed the challenges: \(written.debugDescription)") }
    _ = AuthenticationChallenge.hasError("invalid_token", scheme: "Bearer", in: text)
    return 0
}

/// The challenges as a header value (RFC 9110 §11.6.1): `scheme name="value", name="value", scheme2`,
/// every value a quoted-string with `"` and `\` escaped. Only this target needs it: the client never
/// writes a `WWW-Authenticate` header.
func serialised(_ challenges: [AuthenticationChallenge]) -> String {
    challenges.map { c -> String in
        var out = c.scheme
        if !c.parameters.isEmpty {
            out +=
                " "
                + c.parameters.map { p -> String in
                    var v = "\""
                    for ch in p.value.unicodeScalars {
                        if ch == "\"" || ch == "\\" { v += "\\" }
                        v.unicodeScalars.append(ch)
                    }
                    return p.name + "=" + v + "\""
                }.joined(separator: ", ")
        }
        return out
    }.joined(separator: ", ")
}
