import Latchkey
import LatchkeyHTTP
import LatchkeyJOSE

// libFuzzer entry point for the RFC 8693 answer parser (`TokenExchangeAnswer`): the token
// endpoint's answer to an exchange is untrusted. The first byte picks the status and Content-Type,
// the rest is the body. An accepted answer must keep the parser's promises: a token of VSCHAR
// without spaces, an `issued_token_type` of visible ASCII, `token_type` Bearer, DPoP or N_A (never
// N_A for an access token), an expiry inside the clamps, and the audience the JWT names or the one
// asked for.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzOne(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let bytes = Array(UnsafeBufferPointer(start: data, count: size))
    guard let first = bytes.first else { return 0 }
    let shapes: [(Int, String?)] = [
        (200, "application/json"), (200, "application/x-www-form-urlencoded"), (200, nil), (400, "application/json"),
        (201, "application/jwt+json"), (500, "text/plain")
    ]
    let (status, type) = shapes[Int(first) % shapes.count]
    let url = HTTPURL(string: "https://idp.example/token")!
    let response = HTTPResponse(
        status: status, headers: type.map { [("Content-Type", $0)] } ?? [], body: Array(bytes.dropFirst()), url: url)
    let now = Timestamp(timeIntervalSince1970: 1_800_000_000)
    let asked = ["asked-audience"]
    guard case .token(let token) = TokenExchangeAnswer.parse(response, audiences: asked, at: now) else { return 0 }
    if !(200..<300).contains(status) { fatalError("a token from status \(status)") }
    if token.token.isEmpty || !token.token.utf8.allSatisfy({ $0 > 0x20 && $0 < 0x7F }) { fatalError("an unusable token") }
    if token.issuedTokenType.isEmpty || !token.issuedTokenType.utf8.allSatisfy({ $0 > 0x20 && $0 < 0x7F }) {
        fatalError("an unusable issued_token_type")
    }
    switch token.tokenType {
    case "Bearer", "DPoP": break
    case "N_A": if token.issuedTokenType == TokenExchange.accessTokenType { fatalError("N_A for an access token") }
    default: fatalError("token_type \(token.tokenType)")
    }
    if let at = token.expiresAt {
        let seconds = at.timeIntervalSince1970
        if !seconds.isFinite || seconds < 0 || seconds > 253_402_300_799 { fatalError("an expiry outside the clamps") }
    }
    if token.audience.isEmpty { fatalError("no audience: the asked one is the fallback") }
    return 0
}
