import Latchkey

// libFuzzer entry point for the git credential-helper reader: its input comes from whatever runs
// `latchkey credential`, and a parse decides whether a token is printed, so any bytes must parse or
// be refused, never crash, and a parse must keep the reader's promises: the size, line-length and
// line-count limits, no control character (C0, DEL or C1) in a value, names as git writes them, and
// a host match only for the exact host.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzOne(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let bytes = Array(UnsafeBufferPointer(start: data, count: size))
    guard let request = try? CredentialRequest.parse(bytes) else { return 0 }
    if bytes.count > CredentialRequest.maxBytes { fatalError("oversized input was parsed") }
    // The lines read: up to the first empty one (a lone CR counts as empty, as git strips it).
    var lines = 0
    for line in bytes.split(separator: 0x0A, omittingEmptySubsequences: false) {
        let content = line.last == 0x0D ? line.dropLast() : line
        if content.isEmpty { break }
        lines += 1
        if content.count > CredentialRequest.maxLineBytes { fatalError("a line longer than the limit was parsed") }
    }
    if lines > CredentialRequest.maxLines { fatalError("\(lines) lines parsed, limit \(CredentialRequest.maxLines)") }
    for attribute in request.attributes {
        if attribute.name.isEmpty { fatalError("an attribute without a name") }
        if attribute.value.unicodeScalars.contains(where: isControl) {
            fatalError("a control character survived in a value")
        }
        if attribute.name.utf8.contains(UInt8(ascii: "=")) { fatalError("a name holds '='") }
    }
    // The host match must be exact (up to ASCII case): a parse never matches a host it does not name.
    for host in ["git.example.com", "git.example.com:8443"] where request.isHTTPS(forHost: host) {
        guard request.scheme == "https", let h = request.host, asciiLowercased(h) == host else {
            fatalError("\(request.host ?? "no host") matched \(host)")
        }
    }
    return 0
}

/// The reader's rule for a value: no C0 control, DEL or C1 control (U+0080–U+009F).
func isControl(_ s: Unicode.Scalar) -> Bool { s.value < 0x20 || s.value == 0x7F || (0x80...0x9F).contains(s.value) }

/// ASCII-only lowercasing, as the reader compares hosts (no Unicode case folding).
func asciiLowercased(_ s: String) -> String {
    String(decoding: s.utf8.map { $0 >= 65 && $0 <= 90 ? $0 + 32 : $0 }, as: UTF8.self)
}
