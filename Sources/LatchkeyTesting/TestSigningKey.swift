import LatchkeyCrypto
import LatchkeyJOSE

/// An issuer's ES256 signing key for tests: signs ID tokens and other JWTs the way a provider does,
/// and publishes the matching JWK Set, so verification runs for real in a test.
public struct TestSigningKey: Sendable {
    /// The `kid` put in headers and in the JWK.
    public let kid: String
    /// The signer (P-256, ES256).
    public let signer: JWSSigner

    /// A fresh P-256 key from `random`.
    public init(kid: String = "k1", random: some RandomSource) throws {
        self.kid = kid
        signer = try JWSSigner(key: .ec(try ECPrivateKey(curve: .p256, random: random)))
    }

    /// The public key as a JWK object, with `kid`, `use` and `alg`.
    public var jwk: JSONObject {
        var o = JWK(publicKey: signer.key.publicKey, keyID: kid).json
        o["use"] = "sig"
        o["alg"] = "ES256"
        return o
    }

    /// A JWK Set document (`{"keys":[…]}`) with the keys of `keys`.
    public static func jwks(_ keys: [TestSigningKey]) -> String {
        JSONValue.object(JSONObject([("keys", .array(keys.map { .object($0.jwk) }))])).jsonText
    }

    /// A compact JWS over `claims` with `typ: JWT`. `alg` and `kid` may be overridden to forge a
    /// header a verifier must refuse; the signature is always ES256 by this key.
    public func sign(_ claims: JSONObject, alg: String = "ES256", kid: String? = nil) throws -> String {
        var header = signer.protectedHeader(type: "JWT", keyReference: .keyID(kid ?? self.kid))
        header["alg"] = .string(alg)
        let input =
            Base64URL.encode(Array(JSONValue.object(header).jsonText.utf8)) + "."
            + Base64URL.encode(Array(JSONValue.object(claims).jsonText.utf8))
        return input + "." + Base64URL.encode(try signer.signature(for: Array(input.utf8)))
    }
}
