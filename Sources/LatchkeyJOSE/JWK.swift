import LatchkeyCrypto

/// A public JSON Web Key (RFC 7517) for RSA or EC signature verification. The crypto key is built and
/// checked once here, so verifying a token costs only the primitive. Private members (`d`, `p`, ...) are
/// ignored and dropped: Latchkey never holds an issuer's private key.
public struct JWK: Sendable, Hashable {
    /// `kty`: "RSA" or "EC".
    public let kty: String
    /// `kid`, if any.
    public let kid: String?
    /// `alg`, if any: when present the key is only used for that algorithm.
    public let alg: String?
    /// `use`, if any.
    public let use: String?
    /// `key_ops`, if any.
    public let keyOps: [String]?
    /// The curve of an EC key.
    public let curve: ECCurve?
    /// The public members of the key (private members removed).
    public let json: JSONObject

    /// The parsed key, built once at init.
    let material: Material

    /// The verification key behind a JWK.
    enum Material: Sendable {
        case rsa(RSAPublicKey, modulusBytes: Int)
        case ec(ECPublicKey, ECCurve)
    }

    /// Members that carry private key material, removed so secrets are not kept or printed.
    private static let privateMembers: Set<String> = ["d", "p", "q", "dp", "dq", "qi", "oth", "k"]

    /// True when `use` (if present) is "sig" and `key_ops` (if present) includes "verify" (RFC 7517 §4.2–4.3).
    public var isEligibleForVerification: Bool {
        if let use, use != "sig" { return false }
        if let keyOps, !keyOps.contains("verify") { return false }
        return true
    }

    /// Parses an RSA (`n`, `e`) or EC (`crv`, `x`, `y`) public key and runs every key check:
    /// strict base64url, RSA ≥ 2048 bits with a sane exponent and no ROCA fingerprint, EC coordinates of
    /// the curve's exact length and on the curve.
    public init(json: JSONObject) throws(JOSEError) {
        func string(_ name: String) throws(JOSEError) -> String? {
            guard let v = json[name] else { return nil }
            guard let s = v.stringValue else { throw .invalidKey("\"\(name)\" is not a string") }
            return s
        }
        func required(_ name: String) throws(JOSEError) -> [UInt8] {
            guard let s = try string(name) else { throw .invalidKey("missing \"\(name)\"") }
            do { return try Base64URL.decode(s) } catch { throw .invalidKey("\"\(name)\" is not strict base64url") }
        }
        guard let kty = try string("kty") else { throw .invalidKey("missing \"kty\"") }
        kid = try string("kid")
        alg = try string("alg")
        use = try string("use")
        if let ops = json["key_ops"] {
            guard let arr = ops.arrayValue else { throw .invalidKey("\"key_ops\" is not an array") }
            var list: [String] = []
            for o in arr {
                guard let s = o.stringValue else { throw .invalidKey("\"key_ops\" holds a non-string") }
                list.append(s)
            }
            keyOps = list
        } else {
            keyOps = nil
        }
        switch kty {
        case "RSA":
            let n = try required("n")
            let e = try required("e")
            // Size, parity and exponent rules live in RSAPublicKey; ROCA is a JWK-level policy check.
            if ROCAFingerprint.matches(modulus: Array(n.drop(while: { $0 == 0 }))) {
                throw .invalidKey("RSA modulus has the ROCA (CVE-2017-15361) fingerprint")
            }
            do {
                let key = try RSAPublicKey(modulus: n, exponent: e)
                material = .rsa(key, modulusBytes: key.modulusByteCount)
            } catch {
                throw .invalidKey("\(error)")
            }
            curve = nil
        case "EC":
            guard let crv = try string("crv") else { throw .invalidKey("missing \"crv\"") }
            let c: ECCurve
            switch crv {
            case "P-256": c = .p256
            case "P-384": c = .p384
            case "P-521": c = .p521
            default: throw .invalidKey("unsupported curve \"\(crv)\"")
            }
            let x = try required("x"), y = try required("y")
            // RFC 7518 §6.2.1.2: coordinates are exactly the curve's field size, no more, no less.
            guard x.count == c.coordinateByteCount, y.count == c.coordinateByteCount else {
                throw .invalidKey("\(crv) coordinates must be \(c.coordinateByteCount) bytes, got \(x.count) and \(y.count)")
            }
            do {
                material = .ec(try ECPublicKey(curve: c, x: x, y: y), c)
            } catch {
                throw .invalidKey("\(error)")
            }
            curve = c
        default:
            throw .invalidKey("unsupported key type \"\(kty)\" (only RSA and EC public keys verify signatures)")
        }
        self.kty = kty
        var pub = JSONObject()
        for m in json where !JWK.privateMembers.contains(m.key) { pub[m.key] = m.value }
        self.json = pub
    }

    /// The RFC 7638 SHA-256 thumbprint, base64url: the required members in lexicographic order,
    /// no whitespace.
    public func thumbprint() -> String {
        let names: [String] = kty == "EC" ? ["crv", "kty", "x", "y"] : ["e", "kty", "n"]
        var canonical = JSONObject()
        for n in names { canonical[n] = json[n] }
        return Base64URL.encode(HashAlgorithm.sha256.hash(Array(JSONValue.object(canonical).jsonText.utf8)))
    }

    /// Two JWKs are equal when their public members are (the crypto key is derived from them).
    public static func == (a: JWK, b: JWK) -> Bool { a.json == b.json }
    /// Hashes the public members.
    public func hash(into h: inout Hasher) { h.combine(json) }
}
