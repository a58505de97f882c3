import LatchkeyJOSE

// libFuzzer entry point for the strict JSON parser: any input gives a value or a JSONParseError. An
// accepted value must survive a round trip: its compact text parses back to the same value.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzOne(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    var parser = JSONParser()
    parser.maxDepth = 32
    guard let value = try? parser.parse(UnsafeBufferPointer(start: data, count: size)) else { return 0 }
    let text = value.jsonText
    guard let again = try? parser.parse(Array(text.utf8)) else { fatalError("own output did not parse: \(text)") }
    if again != value { fatalError("round trip changed the value: \(text)") }
    _ = value.prettyJSONText
    _ = value.int64Value
    return 0
}
