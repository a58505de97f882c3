import FoundationEssentials
import LatchkeyJOSE

// libFuzzer entry point for the whole token path: compact JWS parsing, signature verification against a
// fixed key set (RSA PKCS#1 and PSS, EC P-256 and P-521 public keys from the Wycheproof/RFC 7520 vectors),
// then claims parsing and the at_hash check. Any input must end in a value or a JOSEError, never a crash,
// and what the verifier promises is asserted: a token verifies only under an allowed algorithm with a
// key of that algorithm's type (and curve); an empty allow-list verifies nothing; a flipped signature
// bit never verifies; `signingInput` is exactly the input up to the second '.'.
// (The claim rules themselves are comparisons in Latchkey's IDTokenVerifier, tested at their boundaries.)

/// Public test keys only (Wycheproof and RFC 7520); immutable, so safe to share.
let fuzzKeySet: JWKSet = {
    let text =
        #"{"keys":[{"alg":"ES256","use":"sig","x":"04N0xi21hshyvBp7I167sbE_bXqyqkAPfefdklMO7wY","y":"UI8exy-C06a7DUnjIdENkxeFtHM4-l_41LqEw9nVgmw","crv":"P-256","kid":"kid-ec-sign","kty":"EC"},{"alg":"RS256","use":"sig","n":"kqGboBfAWttWPCA-0cGRgsY6SaYoIARt0B_PkaEcIq9HPYNdu9n6UuWHuuTHrjF_ZoQW97r5HaAorNvrMEGTGdxCHZdEtkHvNVVmrtxTBLiQCbCozXhFoIrVcr3qUBrdGnNn_M3jJi7Wg7p_-x62nS5gNG875oyheRkutHsQXikFZwsN3q_TsPNOVlCiHy8mxzaFTUQGm-X8UYexFyAivlDSjgDJLAZSWfxd7k9Gxuwa3AUfQqQcVcegmgKGCaErQ3qQbh1x7WB6iopE3_-GZ8HMAVtR9AmrVscqYsnjhaCehfAI0iKKs8zXr8tISc0ORbaalrkk03H1ZrsEnDKEWQ","e":"AQAB","kid":"kid-rsa-sign","kty":"RSA"},{"kty":"RSA","use":"sig","alg":"PS256","n":"orRRoH0KpfluRVZxUTVQUUqKW0YuvvcXCU-h_ugiJOY3-XRtP3yv0xh42AMltu9aFwD2WQO0aUKeidbqyIRQl7WrOTGJ25JRLtincRoSU_rNIPecFegkfz0-QuRuSMmOJUov6XZTE6A-_48X4aApOXofomqNzib0kO2BKZYV2YFMItphBCjgnH2WWFlCZvXAIdD87KCNlFoSvoLeTR7Oa0wDFFtdNJXU7VQR64eNrwX9evw-Ca2g8RJkIvWQl1oZaYFvSGmLy7obTZyuedRg2Pn4Xnl1AF2bwixOWsD3waRdElaaYoB9O5oC5aUw53MGb0U9H1tMLpz3ggKD90K51Q","e":"AQAB","kid":"PS256_2048"},{"kty":"EC","kid":"bilbo.baggins@hobbiton.example","use":"sig","crv":"P-521","x":"AHKZLLOsCOzz5cY97ewNUajB957y-C-U88c3v13nmGZx6sYl_oJXu9A5RkTKqjqvjyekWF-7ytDyRXYgCF5cj0Kt","y":"AdymlHvOiLxXkEhayXQnNCvDX4h9htZaCJN34kfmC6pV5OhQHiraVySsUdaQkAgDPrwQrJmbnX9cwlGfP-HqHZR1"}]}"#
    guard let set = try? JWKSet(data: Array(text.utf8)), set.keys.count == 4 else { fatalError("fuzz key set did not load") }
    return set
}()

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzOne(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let text = String(decoding: UnsafeBufferPointer(start: data, count: size), as: UTF8.self)
    guard let jws = try? JWS(compact: text) else { return 0 }
    if text.utf8.count > JWS.maxSize { fatalError("parsed a token above the size limit") }
    if jws.signature.isEmpty { fatalError("parsed a JWS with an empty signature") }
    if jws.header.alg.lowercased() == "none" { fatalError("parsed alg none") }
    let utf8 = Array(text.utf8)
    let dots = utf8.indices.filter { utf8[$0] == UInt8(ascii: ".") }
    guard dots.count == 2 else { fatalError("parsed a token with \(dots.count + 1) segments") }
    if jws.signingInput != Array(utf8[..<dots[1]]) { fatalError("signingInput is not the input up to the second '.'") }

    if (try? JWSVerifier.verify(jws, keys: fuzzKeySet, allowedAlgorithms: [])) != nil {
        fatalError("verified with an empty allow-list")
    }
    // An allow-list chosen by the input, so "verified but not allowed" can be reached as well.
    let all = JWSAlgorithm.allCases
    let mask = utf8.reduce(UInt32(2166136261)) { ($0 ^ UInt32($1)) &* 16777619 }
    let allowed = Set(all.enumerated().filter { mask & (1 << $0.offset) != 0 }.map(\.element))
    for set in [Set(all), allowed] {
        guard let key = try? JWSVerifier.verify(jws, keys: fuzzKeySet, allowedAlgorithms: set) else { continue }
        guard let alg = jws.algorithm, set.contains(alg) else { fatalError("verified an algorithm not allowed") }
        if key.kty != alg.keyType { fatalError("\(alg.rawValue) verified with a \(key.kty) key") }
        if let curve = alg.curve, key.curve != curve { fatalError("\(alg.rawValue) verified with a key on another curve") }
        if let keyAlg = key.alg, keyAlg != alg.rawValue { fatalError("a key for \(keyAlg) verified \(alg.rawValue)") }
        if let kid = jws.header.kid, key.kid != kid { fatalError("verified with a key of another kid") }
        // Any one bit of the signature changed (chosen by the input) must make it fail.
        var flipped = jws.signature
        let bit = Int(mask >> 8) % (flipped.count * 8)
        flipped[bit / 8] ^= UInt8(1) << UInt8(bit % 8)
        let forged = String(decoding: utf8[...dots[1]], as: UTF8.self) + Base64URL.encode(flipped)
        if let f = try? JWS(compact: forged), (try? JWSVerifier.verify(f, keys: fuzzKeySet, allowedAlgorithms: set)) != nil {
            fatalError("a signature with bit \(bit) flipped verified")
        }
    }
    // Claims are parsed on every parsed token so the fuzzer explores them without forging signatures.
    if let claims = try? JWTClaims(payload: jws.payload) {
        if let alg = jws.algorithm, let h = claims.accessTokenHash {
            _ = AccessTokenHash.matches(h, accessToken: "access-token", algorithm: alg)
        }
    }
    return 0
}
