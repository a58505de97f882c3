import Latchkey
import LatchkeyCrypto
import LatchkeyHTTP
import LatchkeyJOSE

// ES256 signing cost: a whole DPoP-shaped proof through JWSSigner.sign (header with the public JWK,
// JSON, base64url, SHA-256, RFC 6979 ECDSA, r‖s) and ECPrivateKey.signature alone, next to raw
// mbedtls_ecdsa_sign_det_ext over the same signing input (MbedTLSDirect.P256Signer), in
// alternating rounds of the same run (BenchTiming.comparePaired).

/// Entry point for `latchkey-bench sign [--seconds S] [--rounds N]`.
func runSignBench(_ options: BenchOptions) {
    let direct = MbedTLSDirect()
    let raw = MbedTLSDirect.P256Signer(using: direct)
    let key: ECPrivateKey
    let signer: JWSSigner
    do {
        key = try ECPrivateKey(curve: .p256, random: SecureRandom())
        signer = try JWSSigner(key: .ec(key))
    } catch { fatalError("bench key: \(error)") }
    let claims = JSONObject([
        ("jti", "e1j3V_bKic8-LAEB"), ("htm", "POST"), ("htu", "https://server.example.com/token"),
        ("iat", .integer(1_700_000_000))
    ])
    let payload = Array(JSONValue.object(claims).jsonText.utf8)
    let header = signer.protectedHeader(type: "dpop+jwt", keyReference: .publicJWK)
    let input = Array((Base64URL.encode(Array(JSONValue.object(header).jsonText.utf8)) + "." + Base64URL.encode(payload)).utf8)

    print(
        "sign: \(options.rounds) alternating rounds of \(BenchTiming.fixed(options.seconds, 1)) CPU-s; best round of each side, median paired ratio"
    )
    print("| operation | raw mbedTLS sign/s | Latchkey sign/s | best/best | median paired ratio | µs per Latchkey op |")
    print("| --- | --- | --- | --- | --- | --- |")
    // The whole proof as `latchkey token --format header` and `proof` make it: 128-bit jti from the
    // DRBG, htu normalised, iat, ath, JSON, base64url, sign (RFC 9449 §4.2).
    let dpopKey: DPoPKey
    do { dpopKey = try DPoPKey(random: SecureRandom()) } catch { fatalError("bench key: \(error)") }
    let random: SecureRandom
    do { random = try SecureRandom() } catch { fatalError("bench random: \(error)") }
    let target = HTTPURL(string: "https://server.example.com/resource?x=1")!
    let now = Timestamp(timeIntervalSince1970: 1_700_000_000)
    let cases: [(String, () -> Bool)] = [
        (
            "DPoPKey.proof (whole resource proof with ath)",
            {
                (try? dpopKey.proof(
                    method: "GET", url: target, accessToken: "Kz~8mXK1EalYznwH-LC-1fBAo.4Ljp~zsPE_NeO.gxU",
                    at: now, random: random))?.isEmpty == false
            }
        ),
        (
            "ES256 JWSSigner.sign (DPoP-shaped, \(input.count)-byte input)",
            {
                (try? signer.sign(payload: payload, type: "dpop+jwt", keyReference: .publicJWK))?.isEmpty == false
            }
        ),
        ("ECPrivateKey.signature (P-256, SHA-256)", { (try? key.signature(for: input, hash: .sha256))?.count == 64 })
    ]
    for (name, ours) in cases {
        let r = BenchTiming.comparePaired(
            rounds: options.rounds, seconds: options.seconds, ours,
            { raw.signSHA256(input, using: direct).count == 64 })
        print(
            "| \(name) | \(BenchTiming.fixed(r.bestB, 0)) | \(BenchTiming.fixed(r.bestA, 0)) | "
                + "\(BenchTiming.fixed(100 * r.bestA / r.bestB, 1)) % | \(BenchTiming.fixed(100 * r.medianRatio, 1)) % | "
                + "\(BenchTiming.fixed(1e6 / r.bestA, 1)) |")
    }
}
