import LatchkeyCrypto

/// Checks a parsed JWS signature against a key set. Cheap checks (algorithm support, allow-list, key
/// selection, signature length) run before the public-key operation.
public enum JWSVerifier {
    /// Verifies `jws` with a key from `keys` and returns that key.
    ///
    /// Key selection: when the token has a `kid`, only keys with that `kid` are candidates (an unknown
    /// `kid` is `noMatchingKey`, never a fallback to other keys); otherwise every key of the right type is
    /// tried. A key is used only if its `kty`/curve fit the algorithm, its `alg` (if any) equals the
    /// token's, and its `use`/`key_ops` allow verification.
    public static func verify(_ jws: JWS, keys: JWKSet, allowedAlgorithms: Set<JWSAlgorithm>) throws(JOSEError) -> JWK {
        guard let alg = jws.algorithm else { throw .unsupportedAlgorithm(jws.header.alg) }
        guard allowedAlgorithms.contains(alg) else { throw .algorithmNotAllowed(alg.rawValue) }
        let kid = jws.header.kid
        // Common case first: walk the keys once and verify with each fitting one; reasons for the
        // error message are only gathered when nothing verified.
        var sawKid = false, sawCandidate = false
        for key in keys.keys {
            if let kid, key.kid != kid { continue }
            sawKid = true
            guard unfit(key, for: alg) == nil else { continue }
            sawCandidate = true
            if check(jws, alg: alg, key: key) { return key }
        }
        if sawCandidate { throw .invalidSignature }
        if let kid, sawKid {
            let reasons = keys.keys.filter { $0.kid == kid }.compactMap { unfit($0, for: alg) }
            throw .invalidKey("key \"\(kid)\" cannot verify \(alg.rawValue): \(reasons.joined(separator: "; "))")
        }
        throw .noMatchingKey(kid: kid)
    }

    /// Why `key` may not verify `alg`, or nil when it may.
    static func unfit(_ key: JWK, for alg: JWSAlgorithm) -> String? {
        if key.kty != alg.keyType { return "key type \(key.kty), need \(alg.keyType)" }
        if let c = alg.curve, key.curve != c { return "curve does not match \(alg.rawValue)" }
        if let ka = key.alg, ka != alg.rawValue { return "key is for \(ka)" }
        if !key.isEligibleForVerification { return "key use/key_ops do not allow verification" }
        return nil
    }

    /// Runs the primitive. Lengths are fixed by the key, so wrong-length signatures never reach mbedTLS.
    static func check(_ jws: JWS, alg: JWSAlgorithm, key: JWK) -> Bool {
        let hash = alg.hashAlgorithm
        switch key.material {
        case .rsa(let pub, let modulusBytes):
            guard jws.signature.count == modulusBytes else { return false }
            switch alg {
            case .rs256, .rs384, .rs512: return pub.isValidPKCS1v15Signature(jws.signature, for: jws.signingInput, hash: hash)
            case .ps256, .ps384, .ps512: return pub.isValidPSSSignature(jws.signature, for: jws.signingInput, hash: hash)
            default: return false
            }
        case .ec(let pub, let curve):
            guard jws.signature.count == 2 * curve.coordinateByteCount else { return false }
            return pub.isValidSignature(rawRS: jws.signature, for: jws.signingInput, hash: hash)
        }
    }
}
