import Latchkey
import LatchkeyJOSE
import LatchkeyRegistration

// libFuzzer entry point for the RFC 7591 metadata codec: a provider's registration answer is
// untrusted JSON. Any bytes must parse or be refused, never crash; a document read in a dialect
// and written back in it must read back as the same value (the codec's round-trip promise, which
// a PUT relies on to repeat what the provider holds).
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzOne(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let bytes = Array(UnsafeBufferPointer(start: data, count: size))
    guard let object = try? JSONParser().parseObject(bytes) else { return 0 }
    for dialect in RegistrationDialect.all {
        guard let metadata = try? ClientMetadata(json: object, dialect: dialect) else { continue }
        let written = metadata.json(in: dialect)
        guard let again = try? ClientMetadata(json: written, dialect: dialect) else { fatalError("written metadata does not read back") }
        if again != metadata { fatalError("round trip changed the metadata in \(dialect.name)") }
        for name in ["client_secret", "registration_access_token"] where metadata.otherMembers[name] != nil {
            fatalError("a credential was kept as metadata")
        }
    }
    return 0
}
