import LatchkeyHTTP

// libFuzzer entry point for the response parser: any byte sequence must end in a message or an
// HTTPError, never a crash, trap or unbounded growth. The input is parsed twice: in one piece, and
// in two pieces split at a point chosen by the first byte (a short tail byte by byte), and both must
// give the same message or the same error, since where a read ends is up to the network. The limits
// are small so the fuzzer reaches them quickly.
let limits = HTTPResponseParser.Limits(maxHeaderBytes: 2048, maxHeaderCount: 16, maxLineLength: 512, maxBodyBytes: 4096)

/// What a parse ended in, comparable.
enum Outcome: Equatable {
    case message(status: Int, reason: String, headers: [String], trailers: [String], body: [UInt8])
    case failure(HTTPError)
}

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzOne(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let bytes = Array(UnsafeBufferPointer(start: data, count: size))
    guard let first = bytes.first else { return 0 }
    let input = bytes.dropFirst()
    let method = first & 0x80 != 0 ? "HEAD" : "GET"
    let split = input.isEmpty ? 0 : Int(first & 0x7F) % (input.count + 1)
    let whole = parse([input], method: method)
    let pieces = parse([input.prefix(split), input.dropFirst(split)], method: method)
    if whole != pieces { fatalError("split at \(split): \(pieces) but in one piece: \(whole)") }
    return 0
}

func parse(_ pieces: [ArraySlice<UInt8>], method: String) -> Outcome {
    var parser = HTTPResponseParser(limits: limits, requestMethod: method)
    do {
        feeding: for (k, piece) in pieces.enumerated() {
            if k > 0 && piece.count < 256 {
                for b in piece where try parser.feed(CollectionOfOne(b)) { break feeding }
            } else if try parser.feed(piece) {
                break
            }
        }
        if !parser.isComplete { try parser.finish() }
        guard let message = parser.message else { fatalError("complete parser without a message") }
        if message.body.count > limits.maxBodyBytes { fatalError("body limit exceeded") }
        if message.headers.count > limits.maxHeaderCount { fatalError("header count limit exceeded") }
        if !(200...599).contains(message.status) { fatalError("interim or invalid status surfaced") }
        return .message(
            status: message.status, reason: message.reason, headers: message.headers.map { $0.name + ":" + $0.value },
            trailers: message.trailers.map { $0.name + ":" + $0.value }, body: message.body)
    } catch {
        if case .protocolViolation = error {} else { fatalError("unexpected error kind \(error)") }
        return .failure(error)
    }
}
