import LatchkeyCrypto

/// LatchkeyCrypto throughput next to the same operations called directly on mbedTLS, in one run.
/// Keys are generated here (RSA-2048 with mbedtls_rsa_gen_key, P-256 with P256PrivateKey).
func runCryptoBench(_ options: BenchOptions) {
    print(
        "crypto: mbedTLS \(MbedTLSInfo.version), \(options.rounds) alternating rounds × \(BenchTiming.fixed(options.seconds, 1)) s, best round reported, rates per thread-CPU second"
    )
    let direct = MbedTLSDirect()
    let random: SecureRandom
    do { random = try SecureRandom() } catch { fatalError("SecureRandom: \(error)") }

    // A JWS signing input of typical ID-token size (header.payload, ~600 bytes).
    let message = Array(
        ("eyJhbGciOiJSUzI1NiIsImtpZCI6ImJlbmNoIn0." + String(repeating: "eyJpc3MiOiJodHRwczovL2lkcC5leGFtcGxlIn0", count: 14)).utf8)

    // RS256 shape: RSA-2048, PKCS#1 v1.5, SHA-256.
    let rsa = MbedTLSDirect.RSAKey(bits: 2048, using: direct)
    let rsaSignature = rsa.signPKCS1v15SHA256(message, using: direct)
    let rsaDirect = MbedTLSDirect.RSAVerifier(modulus: rsa.modulus, exponent: rsa.exponent)
    let rsaKey: RSAPublicKey
    do { rsaKey = try RSAPublicKey(modulus: rsa.modulus, exponent: rsa.exponent) } catch { fatalError("RSAPublicKey: \(error)") }
    let rsaResult = BenchTiming.comparePaired(
        rounds: options.rounds, seconds: options.seconds,
        { rsaKey.isValidPKCS1v15Signature(rsaSignature, for: message, hash: .sha256) },
        { rsaDirect.verifyPKCS1v15SHA256(rsaSignature, message: message) })
    report("RS256-shape verify (RSA-2048 PKCS#1 v1.5 SHA-256)", rsaResult, scale: 1, unit: "ops/s")

    // ES256 shape: P-256, SHA-256, raw r‖s.
    let signer: P256PrivateKey
    let ecKey: ECPublicKey
    let ecSignature: [UInt8]
    do {
        signer = try P256PrivateKey(random: random)
        // Parsed separately, as a JWKS key would be.
        ecKey = try ECPublicKey(curve: .p256, x: signer.publicKey.x, y: signer.publicKey.y)
        ecSignature = try signer.signature(for: message)
    } catch { fatalError("P-256 setup: \(error)") }
    let ecDirect = MbedTLSDirect.P256Verifier(x: ecKey.x, y: ecKey.y)
    let ecResult = BenchTiming.comparePaired(
        rounds: options.rounds, seconds: options.seconds,
        { ecKey.isValidSignature(rawRS: ecSignature, for: message, hash: .sha256) },
        { ecDirect.verifySHA256(rawRS: ecSignature, message: message) })
    report("ES256-shape verify (P-256 ECDSA SHA-256)", ecResult, scale: 1, unit: "ops/s")

    // P-256 sign (deterministic ECDSA, SHA-256).
    let directSigner = MbedTLSDirect.P256Signer(using: direct)
    let signResult = BenchTiming.comparePaired(
        rounds: options.rounds, seconds: options.seconds,
        { ((try? signer.signature(for: message))?.count ?? 0) == 64 },
        { directSigner.signSHA256(message, using: direct).count == 64 })
    report("P-256 sign (RFC 6979, SHA-256)", signResult, scale: 1, unit: "ops/s")

    // AES-256-GCM on 2 KiB buffers (token-file sized).
    let keyBytes = random.bytes(32)
    let key = SecretBytes(keyBytes)
    let nonce = random.bytes(12)
    let plaintext = random.bytes(2048)
    let gcm = MbedTLSDirect.GCM(key: keyBytes)
    var output = [UInt8](repeating: 0, count: plaintext.count)
    var tag = [UInt8](repeating: 0, count: 16)
    let gcmResult = BenchTiming.comparePaired(
        rounds: options.rounds, seconds: options.seconds,
        { ((try? AESGCM.seal(plaintext, key: key, nonce: nonce, authenticating: []))?.tag.count ?? 0) == 16 },
        { gcm.seal(plaintext, into: &output, nonce: nonce, tag: &tag) })
    let mb = Double(plaintext.count) / 1_000_000
    report("AES-256-GCM seal, 2 KiB buffers", gcmResult, scale: mb, unit: "MB/s")
}

private func report(_ name: String, _ result: (bestA: Double, bestB: Double, medianRatio: Double), scale: Double, unit: String) {
    let ours = result.bestA * scale, raw = result.bestB * scale
    print("crypto: \(name)")
    print(
        "  LatchkeyCrypto \(BenchTiming.pad(BenchTiming.fixed(ours, 1), 10)) \(unit)   mbedTLS direct \(BenchTiming.pad(BenchTiming.fixed(raw, 1), 10)) \(unit)   best/best \(BenchTiming.fixed(ours / raw * 100, 1))%   median paired ratio \(BenchTiming.fixed(result.medianRatio * 100, 1))%"
    )
}
