import LatchkeyCrypto
import LatchkeyHTTP
import LatchkeyJOSE

/// A session's DPoP key (RFC 9449): a P-256 key pair made at sign-in, kept only inside the
/// encrypted token file, that signs every proof of the session.
public struct DPoPKey: Sendable {
    let signer: JWSSigner
    /// The RFC 7638 thumbprint of the public key: `dpop_jkt`, and what `cnf.jkt` must equal.
    public let thumbprint: String

    /// A new key from `random` (the DRBG).
    public init(random: some RandomSource) throws(LatchkeyError) {
        let key: ECPrivateKey
        do { key = try ECPrivateKey(curve: .p256, random: random) } catch { throw .tokenBinding(.proofFailed(error.description)) }
        try self.init(key)
    }

    /// The key whose private scalar is `rawScalar` (from the token file).
    public init(rawScalar: SecretBytes, random: some RandomSource) throws(LatchkeyError) {
        let key: ECPrivateKey
        do { key = try ECPrivateKey(curve: .p256, rawScalar: rawScalar, random: random) } catch {
            throw .tokenBinding(.proofFailed(error.description))
        }
        try self.init(key)
    }

    private init(_ key: ECPrivateKey) throws(LatchkeyError) {
        do { signer = try JWSSigner(key: .ec(key), algorithm: .es256) } catch { throw .tokenBinding(.proofFailed(error.description)) }
        thumbprint = signer.publicJWK.thumbprint()
    }

    /// The public key, as proofs embed it.
    public var publicJWK: JWK { signer.publicJWK }

    /// The private scalar, to be stored encrypted (never anywhere else).
    public var rawScalar: SecretBytes {
        guard case .ec(let key) = signer.key else { preconditionFailure("a DPoP key is always EC") }
        return key.rawScalar
    }

    /// A proof (RFC 9449 §4.2) for `method` on `url`: header `typ: dpop+jwt`, `alg: ES256` and the
    /// public `jwk`; claims `jti` (128 random bits), `htm`, `htu` (§4.3, no query or fragment),
    /// `iat`, plus `ath` when `accessToken` is given (resource requests) and `nonce` when the
    /// server handed one out.
    public func proof(
        method: String, url: HTTPURL, accessToken: String? = nil, nonce: String? = nil,
        at now: Timestamp, random: some RandomSource
    ) throws(LatchkeyError) -> String {
        var claims = JSONObject()
        claims["jti"] = .string(Base64URL.encode(random.bytes(16)))
        claims["htm"] = .string(method)
        claims["htu"] = .string(DPoPTarget.htu(url))
        claims["iat"] = .integer(Int64(now.timeIntervalSince1970.rounded(.down)))
        if let accessToken { claims["ath"] = .string(DPoPTarget.accessTokenHash(accessToken)) }
        if let nonce { claims["nonce"] = .string(nonce) }
        do { return try signer.sign(claims: claims, type: "dpop+jwt", keyReference: .publicJWK) } catch {
            throw .tokenBinding(.proofFailed(error.description))
        }
    }
}
