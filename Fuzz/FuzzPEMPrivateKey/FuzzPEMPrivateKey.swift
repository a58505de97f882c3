import LatchkeyCrypto
import LatchkeyJOSE

// libFuzzer entry point for PEM private-key parsing (SigningKey(pem:)): any input must give a key or a
// CryptoError. Every accepted key must be RSA ≥ 2048 bits or EC on P-256/P-384, must sign, and its
// signature must verify through JWSVerifier with its own exported public JWK (which has no private member).
private let random = try! SecureRandom()

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzOne(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let pem = SecretBytes(Array(UnsafeBufferPointer(start: data, count: size)))
    let key: SigningKey
    do { key = try SigningKey(pem: pem, random: random) } catch { return 0 }
    switch key.publicKey {
    case .rsa(let pub): if pub.modulusBitCount < 2048 { fatalError("accepted RSA-\(pub.modulusBitCount)") }
    case .ec(let pub): if pub.curve != .p256 && pub.curve != .p384 { fatalError("accepted curve \(pub.curve)") }
    }
    guard let signer = try? JWSSigner(key: key) else { fatalError("no signer for an accepted key") }
    if signer.publicJWK.json["d"] != nil { fatalError("public JWK carries d") }
    if signer.publicJWK.thumbprint().utf8.count != 43 { fatalError("bad thumbprint length") }
    guard let token = try? signer.sign(payload: Array("{}".utf8), keyReference: .publicJWK),
        let jws = try? JWS(compact: token),
        (try? JWSVerifier.verify(jws, keys: JWKSet(keys: [signer.publicJWK]), allowedAlgorithms: [signer.algorithm])) != nil
    else { fatalError("signature of an accepted key does not verify") }
    return 0
}
