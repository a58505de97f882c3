import LatchkeyCrypto

/// Makes compact JWS (RFC 7515 §7.1) with one private key: client assertions (private_key_jwt,
/// RFC 7523), DPoP proofs (RFC 9449). The `alg` is fixed at creation and always fits the key, so
/// a header can never claim an algorithm the signature was not made with.
public struct JWSSigner: Sendable {
    /// How the protected header points at the verification key.
    public enum KeyReference: Sendable, Hashable {
        /// No key member: the verifier knows the key (e.g. one registered client key).
        case none
        /// A `kid` member, for a key published in a key set.
        case keyID(String)
        /// A `jwk` member holding the public key only (DPoP, RFC 9449 §4.2).
        case publicJWK
    }

    /// The private key.
    public let key: SigningKey
    /// The algorithm every signature uses.
    public let algorithm: JWSAlgorithm
    /// The public JWK of `key` (what `.publicJWK` embeds; `publicJWK.thumbprint()` is RFC 7638).
    public let publicJWK: JWK

    /// A signer for `key` with `algorithm`, or the key's natural algorithm when nil: RS256 for RSA,
    /// ES256 for P-256, ES384 for P-384. Throws `algorithmDoesNotFitKey` for any other pairing
    /// (an EC algorithm with an RSA key, ES384 with a P-256 key, ES512).
    public init(key: SigningKey, algorithm: JWSAlgorithm? = nil) throws(JOSEError) {
        let chosen: JWSAlgorithm
        switch key {
        case .rsa:
            chosen = algorithm ?? .rs256
            guard chosen.keyType == "RSA" else { throw .algorithmDoesNotFitKey(algorithm: chosen.rawValue, key: "RSA") }
        case .ec(let ec):
            chosen = algorithm ?? (ec.curve == .p384 ? .es384 : .es256)
            guard chosen.curve == ec.curve else {
                throw .algorithmDoesNotFitKey(algorithm: chosen.rawValue, key: "EC \(ec.curve.jwkName)")
            }
        }
        self.key = key
        self.algorithm = chosen
        self.publicJWK = JWK(publicKey: key.publicKey)
    }

    /// The protected header, members in a fixed order: `alg`, `typ`, then `kid` or `jwk`.
    public func protectedHeader(type: String? = nil, keyReference: KeyReference = .none) -> JSONObject {
        var header = JSONObject([("alg", .string(algorithm.rawValue))])
        if let type { header["typ"] = .string(type) }
        switch keyReference {
        case .none: break
        case .keyID(let kid): header["kid"] = .string(kid)
        case .publicJWK: header["jwk"] = .object(publicJWK.json)
        }
        return header
    }

    /// The compact JWS of `payload`, with `typ` (e.g. "JWT", "dpop+jwt") when given.
    public func sign(payload: [UInt8], type: String? = nil, keyReference: KeyReference = .none) throws(CryptoError) -> String {
        try sign(header: protectedHeader(type: type, keyReference: keyReference), payload: payload)
    }

    /// The compact JWS of the compact JSON text of `claims` (a JWT when `type` is "JWT").
    public func sign(claims: JSONObject, type: String? = nil, keyReference: KeyReference = .none) throws(CryptoError) -> String {
        try sign(payload: Array(JSONValue.object(claims).jsonText.utf8), type: type, keyReference: keyReference)
    }

    /// Signs `header` exactly as given. Internal: only tests forge headers (a wrong `alg`,
    /// attacker-chosen members) to check that verification refuses them.
    func sign(header: JSONObject, payload: [UInt8]) throws(CryptoError) -> String {
        let input = Base64URL.encode(Array(JSONValue.object(header).jsonText.utf8)) + "." + Base64URL.encode(payload)
        return input + "." + Base64URL.encode(try signature(for: Array(input.utf8)))
    }

    /// The JWS Signature of `signingInput` (RFC 7518 §3: raw r‖s for ECDSA).
    public func signature(for signingInput: [UInt8]) throws(CryptoError) -> [UInt8] {
        let hash = algorithm.hashAlgorithm
        switch key {
        case .rsa(let rsa):
            switch algorithm {
            case .ps256, .ps384, .ps512: return try rsa.pssSignature(for: signingInput, hash: hash)
            default: return try rsa.pkcs1v15Signature(for: signingInput, hash: hash)
            }
        case .ec(let ec):
            return try ec.signature(for: signingInput, hash: hash)
        }
    }
}
