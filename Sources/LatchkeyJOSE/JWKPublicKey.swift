import LatchkeyCrypto

extension JWK {
    /// The public JWK of `publicKey` (RFC 7518 §6.2.1, §6.3.1): `kty`, then `crv`/`x`/`y` or `n`/`e`,
    /// plus `kid` when given. It carries no private member, so it can go into a JWS header (DPoP)
    /// or a published key set; `thumbprint()` gives its RFC 7638 thumbprint.
    public init(publicKey: PublicKey, keyID: String? = nil) {
        var json = JSONObject()
        switch publicKey {
        case .rsa(let key):
            json["kty"] = "RSA"
            json["n"] = .string(Base64URL.encode(key.modulus))
            json["e"] = .string(Base64URL.encode(key.exponent))
            material = .rsa(key, modulusBytes: key.modulusByteCount)
            curve = nil
        case .ec(let key):
            json["kty"] = "EC"
            json["crv"] = .string(key.curve.jwkName)
            json["x"] = .string(Base64URL.encode(key.x))
            json["y"] = .string(Base64URL.encode(key.y))
            material = .ec(key, key.curve)
            curve = key.curve
        }
        if let keyID { json["kid"] = .string(keyID) }
        kty = json["kty"]!.stringValue!
        kid = keyID
        alg = nil
        use = nil
        keyOps = nil
        self.json = json
    }
}

extension ECCurve {
    /// The JWK `crv` name (RFC 7518 §6.2.1.1).
    var jwkName: String {
        switch self {
        case .p256: return "P-256"
        case .p384: return "P-384"
        case .p521: return "P-521"
        }
    }
}
