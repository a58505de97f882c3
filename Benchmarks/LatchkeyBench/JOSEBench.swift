import LatchkeyJOSE

// JWS verify throughput through LatchkeyJOSE (parse + header rules + key selection + verify) next to the
// raw mbedTLS primitive (SHA-256 of the signing input + the verify call on a key loaded once,
// MbedTLSDirect), in alternating rounds of the same run (BenchTiming.comparePaired).
// Tokens: an ~860-byte RS256 and an ~600-byte ES256 ID token, signed once offline with throwaway keys.

private let benchRS256Token =
    "eyJhbGciOiJSUzI1NiIsImtpZCI6ImJlbmNoLXJzYSIsInR5cCI6IkpXVCJ9.eyJpc3MiOiJodHRwczovL2lkcC5leGFtcGxlLmNvbS9yZWFsbXMvZGV2aWNlcyIsInN1YiI6IjNmMWMyYTllLTViN2QtNGUyYS05YzFmLThkNmIwYTRlN2MyMSIsImF1ZCI6ImxhdGNoa2V5LWRldmljZSIsImV4cCI6MTkwMDAwMDAwMCwiaWF0IjoxNzAwMDAwMDAwLCJhdXRoX3RpbWUiOjE3MDAwMDAwMDAsIm5vbmNlIjoibi0wUzZfV3pBMk1qIiwiYXpwIjoibGF0Y2hrZXktZGV2aWNlIiwiYXRfaGFzaCI6Ijc3UW1VUHRqUGZ6V3RGMkFucEs5UlEiLCJlbWFpbCI6Im9wZXJhdG9yQGV4YW1wbGUuY29tIiwiZW1haWxfdmVyaWZpZWQiOnRydWUsIm5hbWUiOiJEZXZpY2UgT3BlcmF0b3IiLCJzaWQiOiIifQ.HZQr7mToRwrxRslMa6Bf9MaUjGWL1Cm4NtnQrYpIRiMC3CnDKctDBH6iFmO3EYpCdwFNCHE1CUBqotCdq5UjWNFuGzQBcr1ZMMO6KMDDwCHVU1AooVLTWSl7RvRWnLaFJg8VY2CpbhhED-LrJ8_rqtbUBJfLc8tEaAVg9JBuudgGrG3iIxTalTVAdhP8bjmMUAuV8oSJ04a2GuLTaIbTrfuv7AowC9C0H6-_14x1yym3ervt_72x15vs-44YWdjK7tBhdW2EzwpFUvuaPaR4rDS6zZUfcvOFs2MVpLpK_MdVpja-K01gqcqwqhOFN8cQuozhjVnO4RAIpTN_7kvVYQ"
private let benchES256Token =
    "eyJhbGciOiJFUzI1NiIsImtpZCI6ImJlbmNoLWVjIiwidHlwIjoiSldUIn0.eyJpc3MiOiJodHRwczovL2lkcC5leGFtcGxlLmNvbS9yZWFsbXMvZGV2aWNlcyIsInN1YiI6IjNmMWMyYTllLTViN2QtNGUyYS05YzFmLThkNmIwYTRlN2MyMSIsImF1ZCI6ImxhdGNoa2V5LWRldmljZSIsImV4cCI6MTkwMDAwMDAwMCwiaWF0IjoxNzAwMDAwMDAwLCJhdXRoX3RpbWUiOjE3MDAwMDAwMDAsIm5vbmNlIjoibi0wUzZfV3pBMk1qIiwiYXpwIjoibGF0Y2hrZXktZGV2aWNlIiwiYXRfaGFzaCI6Ijc3UW1VUHRqUGZ6V3RGMkFucEs5UlEiLCJlbWFpbCI6Im9wZXJhdG9yQGV4YW1wbGUuY29tIiwiZW1haWxfdmVyaWZpZWQiOnRydWUsIm5hbWUiOiJEZXZpY2UgT3BlcmF0b3IiLCJzaWQiOiIifQ.MBM0mP-Xhhv7Jgjz2WIMqamZNBowBW8YaulIw6vMetL9LTtMsxdXts1TksJogjT3NcgqyGNCkATjXS2nznHhdA"
private let benchJWKS =
    #"{"keys":[{"kty":"RSA","kid":"bench-rsa","alg":"RS256","use":"sig","n":"kkTI12QtESuzuJKFRei13AP3YohWpALhmx5zKSCNqc76t9sP2yJ03MkVWxLFbIrfDzFDlR3Ot51UJ-GaJojGV6poXOxJfoXLNK2obee9PBbLcKOBh4jfISPaF4UHVdYOi9gnmb3obR4hV0qdNRhveJ1Dk-V2BbClaphCVvNGqs4xTeNsNyT91tv9qoTkmvunnUX8BPbZfMY7oxg1zELVosVjMaKVjvzjqCFYrhg6TT15jvtEp71so6nqF8hHdBWo1N4lhDubpxxwGbfoRCIb8t3lW0aaoqVzongwvp4TmFEUL8cTmm178HiHrrs3B5irdNEpXHnrfHrdPYM2Xj04qQ","e":"AQAB"},{"kty":"EC","kid":"bench-ec","alg":"ES256","use":"sig","crv":"P-256","x":"9U4k2U8fsiNqZRYQELtxtIf88kc2ENTG82uEmmQ79wc","y":"Z_kHF6SfrZzSJqvfk8a5nTk45nDoxdGfmmr_gVuOGP8"}]}"#

/// Entry point for `latchkey-bench jose [--seconds S] [--rounds N]`.
func runJOSEBench() {
    let options = BenchOptions.parse(Array(CommandLine.arguments.dropFirst(2)))
    let keys: JWKSet
    do { keys = try JWKSet(data: Array(benchJWKS.utf8)) } catch { fatalError("bench JWKS: \(error)") }
    let allowed: Set<JWSAlgorithm> = [.rs256, .es256]

    func keyBytes(_ kid: String, _ member: String) -> [UInt8] {
        guard let text = keys.key(withID: kid)?.json[member]?.stringValue, let bytes = try? Base64URL.decode(text) else {
            fatalError("bench key \(kid).\(member)")
        }
        return bytes
    }
    /// What the raw side starts from: the signing input and the decoded signature.
    func pieces(_ token: String) -> (input: [UInt8], signature: [UInt8]) {
        let parts = token.split(separator: ".")
        guard parts.count == 3, let sig = try? Base64URL.decode(parts[2]) else { fatalError("bench token") }
        return (Array((parts[0] + "." + parts[1]).utf8), sig)
    }
    func viaJOSE(_ token: String) -> Bool {
        guard let jws = try? JWS(compact: token) else { return false }
        return (try? JWSVerifier.verify(jws, keys: keys, allowedAlgorithms: allowed)) != nil
    }

    let rsa = MbedTLSDirect.RSAVerifier(modulus: keyBytes("bench-rsa", "n"), exponent: keyBytes("bench-rsa", "e"))
    let p256 = MbedTLSDirect.P256Verifier(x: keyBytes("bench-ec", "x"), y: keyBytes("bench-ec", "y"))
    let rs = pieces(benchRS256Token), es = pieces(benchES256Token)

    print(
        "jose: \(options.rounds) alternating rounds of \(BenchTiming.fixed(options.seconds, 1)) CPU-s; best round of each side, median paired ratio"
    )
    print("| token | bytes | raw mbedTLS verify/s | LatchkeyJOSE parse+verify/s | best/best | median paired ratio |")
    print("| --- | --- | --- | --- | --- | --- |")
    let cases: [(String, String, () -> Bool)] = [
        ("RS256", benchRS256Token, { rsa.verifyPKCS1v15SHA256(rs.signature, message: rs.input) }),
        ("ES256", benchES256Token, { p256.verifySHA256(rawRS: es.signature, message: es.input) })
    ]
    for (name, token, raw) in cases {
        let r = BenchTiming.comparePaired(rounds: options.rounds, seconds: options.seconds, { viaJOSE(token) }, raw)
        print(
            "| \(name) | \(token.utf8.count) | \(BenchTiming.fixed(r.bestB, 0)) | \(BenchTiming.fixed(r.bestA, 0)) | "
                + "\(BenchTiming.fixed(100 * r.bestA / r.bestB, 1)) % | \(BenchTiming.fixed(100 * r.medianRatio, 1)) % |")
    }
    // The parse-only cost, so the overhead is visible on its own.
    let parseRate = BenchTiming.rate(seconds: options.seconds) { (try? JWS(compact: benchRS256Token)) != nil }
    print(
        "jose: JWS(compact:) alone on the RS256 token: \(BenchTiming.fixed(parseRate, 0)) parses/s (\(BenchTiming.fixed(1e6 / parseRate, 2)) µs each)"
    )
}
