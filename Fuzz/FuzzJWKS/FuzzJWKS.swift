import LatchkeyJOSE

// libFuzzer entry point for JWK Set parsing: any document must give a key set (bad keys skipped with a
// reason) or a JOSEError. Every accepted key is exercised: eligibility, thumbprint, and one verification
// attempt of a fixed token with a dummy signature.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzOne(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let bytes = Array(UnsafeBufferPointer(start: data, count: size))
    guard let set = try? JWKSet(data: bytes) else { return 0 }
    if set.keys.count > JWKSet.maxKeys { fatalError("key limit exceeded") }
    for key in set.keys {
        if key.kty != "RSA" && key.kty != "EC" { fatalError("accepted kty \(key.kty)") }
        for secret in ["d", "p", "q", "dp", "dq", "qi", "oth", "k"] where key.json[secret] != nil {
            fatalError("kept private member \(secret)")
        }
        if key.thumbprint().utf8.count != 43 { fatalError("bad thumbprint length") }
        _ = key.isEligibleForVerification
        if let kid = key.kid, set.key(withID: kid) == nil { fatalError("key(withID:) missed \(kid)") }
    }
    // A token with a plausible header whose signature cannot verify: exercises selection and length checks.
    for alg in ["RS256", "PS384", "ES256", "ES512"] {
        let header = Base64URL.encode(Array("{\"alg\":\"\(alg)\"}".utf8))
        if let jws = try? JWS(compact: header + ".e30." + Base64URL.encode([UInt8](repeating: 1, count: 64))),
            (try? JWSVerifier.verify(jws, keys: set, allowedAlgorithms: Set(JWSAlgorithm.allCases))) != nil
        {
            fatalError("dummy signature verified")
        }
    }
    return 0
}
