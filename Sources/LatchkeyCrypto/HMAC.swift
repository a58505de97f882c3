internal import CMbedTLS

/// HMAC (RFC 2104) over the SHA-2 family.
public enum HMAC {
    /// The HMAC of `data` under `key`, `hash.byteCount` bytes long.
    public static func authenticationCode(_ hash: HashAlgorithm, key: [UInt8], data: [UInt8]) -> [UInt8] {
        var output = [UInt8](repeating: 0, count: hash.byteCount)
        let code = key.withUnsafeBufferPointer { k in
            data.withUnsafeBufferPointer { d in
                output.withUnsafeMutableBufferPointer { o in
                    mbedtls_md_hmac(hash.mdInfo, k.baseAddress, k.count, d.baseAddress, d.count, o.baseAddress)
                }
            }
        }
        // Fails only on allocation failure or NULL md_info.
        precondition(code == 0, "HMAC failed: \(CryptoError.mbedTLSText(code))")
        return output
    }
}
