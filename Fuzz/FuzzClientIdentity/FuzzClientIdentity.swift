import LatchkeyCrypto
import LatchkeyHTTP

// libFuzzer entry point for the client certificate and key reader (TLSClientIdentity): any bytes as
// the certificate chain PEM and the private key PEM must end in an identity that keeps the type's
// promises or in a ClientIdentityError, never a crash. The first two bytes (big-endian) say where the
// rest splits into certificate and key; the seeds (Tests/FuzzCorpus/clientidentity) are real pairs,
// valid at the fixed time below, so mutations reach the key-type, pair, usage and validity checks.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzOne(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let bytes = Array(UnsafeBufferPointer(start: data, count: size))
    guard bytes.count >= 2 else { return 0 }
    let rest = Array(bytes.dropFirst(2))
    let split = (Int(bytes[0]) << 8 | Int(bytes[1])) % (rest.count + 1)
    let time = Timestamp(timeIntervalSince1970: 1_798_761_600)  // 2027-01-01T00:00:00Z
    let identity: TLSClientIdentity
    do {
        identity = try TLSClientIdentity(
            certificateChainPEM: Array(rest[..<split]), privateKeyPEM: SecretBytes(Array(rest[split...])),
            at: time)
    } catch {
        _ = error.description
        return 0
    }
    check(identity, at: time)
    return 0
}

/// The type's promises: a 32-byte thumbprint, valid at the time given, a supported key, a displayable subject.
private func check(_ identity: TLSClientIdentity, at time: Timestamp) {
    if identity.certificateThumbprintSHA256.count != 32 { fatalError("thumbprint is not 32 bytes") }
    if !(identity.notBefore <= time && time <= identity.notAfter) { fatalError("accepted outside its validity period") }
    switch identity.keyType {
    case .rsa(let bits): if bits < 2048 { fatalError("short RSA key accepted") }
    case .ec(let curve): if curve != .p256 && curve != .p384 { fatalError("unsupported curve accepted") }
    }
    if identity.certificateCount < 1 { fatalError("identity without a certificate") }
    if identity.subject.utf8.contains(where: { $0 < 0x20 || $0 >= 0x7F }) { fatalError("unprintable subject") }
    let text = identity.description
    if text.utf8.count > 4096 { fatalError("unbounded description") }
}
