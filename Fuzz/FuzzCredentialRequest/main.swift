import Latchkey

// libFuzzer entry point for the git credential-helper reader: its input comes from whatever runs
// `latchkey credential`, and a parse decides whether a token is printed, so any bytes must parse or
// be refused, never crash, and a parse must keep the reader's promises.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzOne(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let bytes = Array(UnsafeBufferPointer(start: data, count: size))
    guard let request = try? CredentialRequest.parse(bytes) else { return 0 }
    if bytes.count > CredentialRequest.maxBytes { fatalError("oversized input was parsed") }
    for attribute in request.attributes {
        if attribute.name.isEmpty { fatalError("an attribute without a name") }
        if attribute.value.unicodeScalars.contains(where: { $0.value < 0x20 || $0.value == 0x7F }) {
            fatalError("a control character survived in a value")
        }
        if attribute.name.utf8.contains(UInt8(ascii: "=")) { fatalError("a name holds '='") }
    }
    // The host match must be exact (up to ASCII case): a parse never matches a host it does not name.
    if request.isHTTPS(forHost: "git.example.com") {
        guard request.scheme == "https", let host = request.host, host.utf8.count == 15 else { fatalError("a wrong host matched") }
    }
    return 0
}
