import LatchkeyHTTP

// libFuzzer entry point for the URL type every request, redirect and shown address goes through:
// any text must parse into an HTTPURL that keeps every promise of the type, or be refused with an
// HTTPError; never a crash. The first byte splits the input into a base and a reference, so
// `resolving` (redirect Locations) is exercised as well.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzOne(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let bytes = Array(UnsafeBufferPointer(start: data, count: size))
    guard let first = bytes.first else { return 0 }
    let rest = Array(bytes.dropFirst())
    let split = rest.isEmpty ? 0 : Int(first) % (rest.count + 1)
    let text = String(decoding: rest[..<split], as: UTF8.self)
    let reference = String(decoding: rest[split...], as: UTF8.self)
    for candidate in [text, "https://idp.example" + text] {
        guard let url = try? HTTPURL.parse(candidate) else { continue }
        check(url)
        if let resolved = try? url.resolving(reference) { check(resolved) }
    }
    return 0
}

/// The type's promises: printable ASCII only, https or loopback http, a port in range, and a
/// request line built from it that has no space or control byte.
private func check(_ url: HTTPURL) {
    if url.absoluteString.utf8.contains(where: { $0 <= 0x20 || $0 >= 0x7F }) { fatalError("unprintable URL accepted") }
    if url.scheme != "https" && !(url.scheme == "http" && LoopbackAddress.isLoopbackHost(url.host)) {
        fatalError("plain http to a non-loopback host accepted")
    }
    if let p = url.port, !(1...65535).contains(p) { fatalError("port out of range") }
    if url.pathAndQuery.utf8.contains(where: { $0 <= 0x20 || $0 >= 0x7F }) || !url.pathAndQuery.hasPrefix("/") {
        fatalError("bad request target")
    }
    if url.host.isEmpty { fatalError("empty host") }
    // Reparsing what we print gives the same URL.
    guard let again = HTTPURL(string: url.absoluteString), again == url else { fatalError("not stable under reparse") }
}
