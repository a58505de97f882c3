import Latchkey
import LatchkeyCrypto
import LatchkeyJOSE

/// A device's own client key for `private_key_jwt`: the private key as PEM (held only while it is
/// written to its owner-only file) and the public JWK sent in `jwks`, whose `kid` is its RFC 7638
/// thumbprint so a provider holding several keys picks the one that signed.
public struct ClientKey: Sendable {
    /// The private key, unencrypted PEM, zeroed when the last copy is released.
    public let pem: SecretBytes
    /// The public JWK: `kty`, the key's members, `kid`, `use: sig` and `alg`.
    public let publicJWK: JSONObject
    /// The RFC 7638 SHA-256 thumbprint, base64url (also the `kid`).
    public let thumbprint: String
    /// The algorithm assertions are signed with.
    public let algorithm: JWSAlgorithm

    /// The algorithms a device key is made for: ES256 (P-256, the default) and PS256 (RSA-PSS).
    public static let generatedAlgorithms: [JWSAlgorithm] = [.es256, .ps256]

    /// Generates a key for `algorithm` (ES256: P-256; PS256: RSA of `rsaBits` bits, at least 2048).
    public static func generate(_ algorithm: JWSAlgorithm, rsaBits: Int = 2048, random: some RandomSource) throws(RegistrationError)
        -> ClientKey
    {
        let kind: PrivateKeyGenerator.Kind
        switch algorithm {
        case .es256: kind = .p256
        case .ps256: kind = .rsa(bits: rsaBits)
        default: throw .keyGeneration("\(algorithm.rawValue) keys are not generated; use ES256 or PS256")
        }
        do {
            return try ClientKey(pem: try PrivateKeyGenerator.pem(kind, random: random), algorithm: algorithm, random: random)
        } catch {
            throw .keyGeneration("\(error)")
        }
    }

    /// The key behind an existing PEM (`--client-key-file`); `algorithm` nil takes the key's own
    /// (ES256 for P-256, ES384 for P-384, PS256 for RSA).
    public init(pem: SecretBytes, algorithm: JWSAlgorithm?, random: some RandomSource) throws(RegistrationError) {
        let key: SigningKey
        do { key = try SigningKey(pem: pem, random: random) } catch { throw .keyGeneration("\(error)") }
        let chosen: JWSAlgorithm
        switch (key.publicKey, algorithm) {
        case (_, let given?): chosen = given
        case (.rsa, nil): chosen = .ps256
        case (.ec(let ec), nil): chosen = ec.curve == .p384 ? .es384 : .es256
        }
        guard (chosen.keyType == "RSA") == key.publicKey.isRSA else {
            throw .keyGeneration("a \(key.publicKey.isRSA ? "RSA" : "EC") key cannot sign \(chosen.rawValue)")
        }
        let plain = JWK(publicKey: key.publicKey)
        thumbprint = plain.thumbprint()
        var json = JWK(publicKey: key.publicKey, keyID: thumbprint).json
        json["use"] = "sig"
        json["alg"] = .string(chosen.rawValue)
        publicJWK = json
        self.algorithm = chosen
        self.pem = pem
    }

    /// `{"keys": [...]}` of `keys`' public JWKs, in order.
    public static func keySet(_ keys: [JSONObject]) -> JSONObject {
        JSONObject([("keys", .array(keys.map(JSONValue.object)))])
    }
}

extension PublicKey {
    var isRSA: Bool { if case .rsa = self { return true }; return false }
}
