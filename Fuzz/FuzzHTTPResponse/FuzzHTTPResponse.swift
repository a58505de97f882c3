import LatchkeyHTTP

// libFuzzer entry point for the response parser: any byte sequence must end in a message or an
// HTTPError, never a crash, trap or unbounded growth. The input is fed in two pieces split at a point
// chosen by the first byte, so incremental feeding is exercised as well, and the limits are small so
// the fuzzer reaches them quickly.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzOne(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let bytes = Array(UnsafeBufferPointer(start: data, count: size))
    guard let first = bytes.first else { return 0 }
    let input = bytes.dropFirst()
    let limits = HTTPResponseParser.Limits(maxHeaderBytes: 2048, maxHeaderCount: 16, maxLineLength: 512, maxBodyBytes: 4096)
    let method = first & 0x80 != 0 ? "HEAD" : "GET"
    var parser = HTTPResponseParser(limits: limits, requestMethod: method)
    let split = input.isEmpty ? 0 : Int(first & 0x7F) % (input.count + 1)
    do {
        let head = input.prefix(split)
        let tail = input.dropFirst(split)
        if try !parser.feed(head) {
            // Feed the rest byte by byte for short inputs, in one go otherwise.
            if tail.count < 256 {
                for b in tail where try parser.feed(CollectionOfOne(b)) { break }
            } else {
                try parser.feed(tail)
            }
        }
        if !parser.isComplete { try parser.finish() }
        guard let message = parser.message else { fatalError("complete parser without a message") }
        if message.body.count > limits.maxBodyBytes { fatalError("body limit exceeded") }
        if message.headers.count > limits.maxHeaderCount { fatalError("header count limit exceeded") }
        if !(200...599).contains(message.status) { fatalError("interim or invalid status surfaced") }
    } catch {
        if case .protocolViolation = error {} else { fatalError("unexpected error kind \(error)") }
    }
    return 0
}
