import Glibc

/// A compact-serialised JWS (RFC 7515 §7.1), parsed and structurally checked but not yet verified.
/// Verification is `JWSVerifier.verify`; nothing here trusts the payload.
public struct JWS: Sendable {
    /// Largest accepted token, in bytes: ID tokens are a few KiB; anything bigger is refused before decoding.
    public static let maxSize = 64 * 1024

    /// The decoded protected header.
    public let header: JOSEHeader
    /// The decoded payload bytes.
    public let payload: [UInt8]
    /// `BASE64URL(header) || '.' || BASE64URL(payload)`: the bytes the signature covers.
    public let signingInput: [UInt8]
    /// The decoded signature bytes (never empty).
    public let signature: [UInt8]
    /// The algorithm, or nil when `alg` names one Latchkey does not implement.
    public let algorithm: JWSAlgorithm?

    /// Parses `compact`: size limit, exactly three segments, strict base64url in each, a JSON-object
    /// header that passes `JOSEHeader` rules, and a non-empty signature.
    public init(compact: String) throws(JOSEError) {
        var text = compact
        // withUTF8 is rethrows (untyped), so carry the typed error out in a Result.
        let parsed = try text.withUTF8 { (buf) -> Result<(JOSEHeader, [UInt8], [UInt8], [UInt8]), JOSEError> in
            do throws(JOSEError) { return .success(try JWS.parse(buf)) } catch { return .failure(error) }
        }.get()
        header = parsed.0
        payload = parsed.1
        signingInput = parsed.2
        signature = parsed.3
        algorithm = JWSAlgorithm(rawValue: header.alg)
    }

    private static func parse(_ buf: UnsafeBufferPointer<UInt8>) throws(JOSEError) -> (JOSEHeader, [UInt8], [UInt8], [UInt8]) {
        guard buf.count <= maxSize else { throw .malformed("token larger than \(maxSize) bytes") }
        guard !buf.isEmpty else { throw .malformed("empty token") }
        // memchr: the dot scan over a whole token is measurable next to an RSA verify.
        guard let base = buf.baseAddress.map(UnsafeRawPointer.init) else { throw .malformed("empty token") }
        let dot = Int32(UInt8(ascii: "."))
        guard let p1 = memchr(base, dot, buf.count).map(UnsafeRawPointer.init) else {
            throw .malformed("expected three segments, found 1")
        }
        let first = p1 - base
        guard let p2 = memchr(p1 + 1, dot, buf.count - first - 1).map(UnsafeRawPointer.init) else {
            throw .malformed("expected three segments, found 2")
        }
        let second = p2 - base
        if memchr(p2 + 1, dot, buf.count - second - 1) != nil {
            throw .malformed("more than three segments (JWE or JSON serialisation is not accepted)")
        }
        let dots = (first, second)
        let h = UnsafeBufferPointer(rebasing: buf[0..<dots.0])
        let p = UnsafeBufferPointer(rebasing: buf[(dots.0 + 1)..<dots.1])
        let s = UnsafeBufferPointer(rebasing: buf[(dots.1 + 1)...])
        guard !h.isEmpty else { throw .malformed("empty header segment") }
        guard !s.isEmpty else { throw .malformed("empty signature segment") }
        let headerBytes = try Base64URL.decode(bytes: h)
        let headerObject: JSONObject
        do { headerObject = try JSONParser().parseObject(headerBytes) } catch { throw .malformed("header: \(error)") }
        let header = try JOSEHeader(json: headerObject)
        let payload = try Base64URL.decode(bytes: p)
        let signature = try Base64URL.decode(bytes: s)
        let signingInput = Array(UnsafeBufferPointer(rebasing: buf[0..<dots.1]))
        return (header, payload, signingInput, signature)
    }
}
