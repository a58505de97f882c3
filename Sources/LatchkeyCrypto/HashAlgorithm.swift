internal import CMbedTLS

/// The SHA-2 digests JOSE and the token file need.
public enum HashAlgorithm: Sendable, Hashable {
    /// SHA-256 (32-byte digest).
    case sha256
    /// SHA-384 (48-byte digest).
    case sha384
    /// SHA-512 (64-byte digest).
    case sha512

    /// Digest length in bytes.
    public var byteCount: Int {
        switch self {
        case .sha256: return 32
        case .sha384: return 48
        case .sha512: return 64
        }
    }

    /// The mbedTLS message-digest identifier.
    var mdType: mbedtls_md_type_t {
        switch self {
        case .sha256: return MBEDTLS_MD_SHA256
        case .sha384: return MBEDTLS_MD_SHA384
        case .sha512: return MBEDTLS_MD_SHA512
        }
    }

    /// mbedTLS's descriptor for this digest (compiled in, so never nil).
    var mdInfo: OpaquePointer {
        guard let info = mbedtls_md_info_from_type(mdType) else {
            preconditionFailure("mbedTLS built without \(self)")
        }
        return info
    }

    /// The digest of `data`.
    public func hash<C: Collection>(_ data: C) -> [UInt8] where C.Element == UInt8 {
        if let digest = data.withContiguousStorageIfAvailable({ hash(UnsafeRawBufferPointer($0)) }) {
            return digest
        }
        return Array(data).withUnsafeBytes { hash($0) }
    }

    /// The digest of raw bytes.
    func hash(_ bytes: UnsafeRawBufferPointer) -> [UInt8] {
        var output = [UInt8](repeating: 0, count: byteCount)
        let input = bytes.baseAddress?.assumingMemoryBound(to: UInt8.self)
        let code: Int32 = output.withUnsafeMutableBufferPointer { out in
            switch self {
            case .sha256: return latchkey_sha256(input, bytes.count, out.baseAddress)
            case .sha384: return latchkey_sha512(input, bytes.count, out.baseAddress, 1)
            case .sha512: return latchkey_sha512(input, bytes.count, out.baseAddress, 0)
            }
        }
        // Only fails on NULL arguments, which cannot happen here.
        precondition(code == 0, "SHA-2 failed: \(CryptoError.mbedTLSText(code))")
        return output
    }
}
