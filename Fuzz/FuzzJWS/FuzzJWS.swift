import FoundationEssentials
import LatchkeyJOSE

// libFuzzer entry point for the whole token path: compact JWS parsing, signature verification against a
// fixed key set (RSA PKCS#1 and PSS, EC P-256 and P-521 public keys from the Wycheproof/RFC 7520 vectors),
// then claims parsing and the at_hash check. Any input must end in a value or a JOSEError, never a crash.
// (The claim rules themselves are comparisons in Latchkey's IDTokenVerifier, tested at their boundaries.)

/// Public test keys only (Wycheproof and RFC 7520); immutable, so safe to share.
let fuzzKeySet: JWKSet = {
    let text = #"{"keys":[{"alg":"ES256","use":"sig","x":"04N0xi21hshyvBp7I167sbE_bXqyqkAPfefdklMO7wY","y":"UI8exy-C06a7DUnjIdENkxeFtHM4-l_41LqEw9nVgmw","crv":"P-256","kid":"kid-ec-sign","kty":"EC"},{"alg":"RS256","use":"sig","n":"kqGboBfAWttWPCA-0cGRgsY6SaYoIARt0B_PkaEcIq9HPYNdu9n6UuWHuuTHrjF_ZoQW97r5HaAorNvrMEGTGdxCHZdEtkHvNVVmrtxTBLiQCbCozXhFoIrVcr3qUBrdGnNn_M3jJi7Wg7p_-x62nS5gNG875oyheRkutHsQXikFZwsN3q_TsPNOVlCiHy8mxzaFTUQGm-X8UYexFyAivlDSjgDJLAZSWfxd7k9Gxuwa3AUfQqQcVcegmgKGCaErQ3qQbh1x7WB6iopE3_-GZ8HMAVtR9AmrVscqYsnjhaCehfAI0iKKs8zXr8tISc0ORbaalrkk03H1ZrsEnDKEWQ","e":"AQAB","kid":"kid-rsa-sign","kty":"RSA"},{"kty":"RSA","use":"sig","alg":"PS256","n":"orRRoH0KpfluRVZxUTVQUUqKW0YuvvcXCU-h_ugiJOY3-XRtP3yv0xh42AMltu9aFwD2WQO0aUKeidbqyIRQl7WrOTGJ25JRLtincRoSU_rNIPecFegkfz0-QuRuSMmOJUov6XZTE6A-_48X4aApOXofomqNzib0kO2BKZYV2YFMItphBCjgnH2WWFlCZvXAIdD87KCNlFoSvoLeTR7Oa0wDFFtdNJXU7VQR64eNrwX9evw-Ca2g8RJkIvWQl1oZaYFvSGmLy7obTZyuedRg2Pn4Xnl1AF2bwixOWsD3waRdElaaYoB9O5oC5aUw53MGb0U9H1tMLpz3ggKD90K51Q","e":"AQAB","kid":"PS256_2048"},{"kty":"EC","kid":"bilbo.baggins@hobbiton.example","use":"sig","crv":"P-521","x":"AHKZLLOsCOzz5cY97ewNUajB957y-C-U88c3v13nmGZx6sYl_oJXu9A5RkTKqjqvjyekWF-7ytDyRXYgCF5cj0Kt","y":"AdymlHvOiLxXkEhayXQnNCvDX4h9htZaCJN34kfmC6pV5OhQHiraVySsUdaQkAgDPrwQrJmbnX9cwlGfP-HqHZR1"}]}"#
    guard let set = try? JWKSet(data: Array(text.utf8)), set.keys.count == 4 else { fatalError("fuzz key set did not load") }
    return set
}()

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzOne(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let text = String(decoding: UnsafeBufferPointer(start: data, count: size), as: UTF8.self)
    guard let jws = try? JWS(compact: text) else { return 0 }
    if jws.signature.isEmpty { fatalError("parsed a JWS with an empty signature") }
    if jws.header.alg.lowercased() == "none" { fatalError("parsed alg none") }
    let verified = (try? JWSVerifier.verify(jws, keys: fuzzKeySet, allowedAlgorithms: Set(JWSAlgorithm.allCases))) != nil
    // Claims are parsed on every parsed token so the fuzzer explores them without forging signatures.
    if let claims = try? JWTClaims(payload: jws.payload) {
        if let alg = jws.algorithm, let h = claims.accessTokenHash {
            _ = AccessTokenHash.matches(h, accessToken: "access-token", algorithm: alg)
        }
    }
    _ = verified
    return 0
}
