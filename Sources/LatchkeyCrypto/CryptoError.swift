internal import CMbedTLS

/// Every failure LatchkeyCrypto reports. mbedTLS failures keep the library's own (negative) code.
public enum CryptoError: Error, Sendable, Equatable, CustomStringConvertible {
    /// An mbedTLS call returned `code` (negative, as mbedTLS defines it) while doing `operation`.
    case mbedTLS(code: Int32, operation: String)
    /// Key material that is malformed or too weak, e.g. "RSA modulus 1024 bits < 2048".
    case invalidKey(String)
    /// A parameter outside what the primitive accepts (nonce length, output length, …).
    case invalidInput(String)
    /// AES-GCM tag mismatch: the ciphertext, AAD, nonce or key is not the one that was sealed.
    case authenticationFailed
    /// A PEM private key was refused; the refusal says what was found.
    case privateKeyRefused(PrivateKeyRefusal)

    /// One line, suitable for an error message; mbedTLS codes carry `mbedtls_strerror` text.
    public var description: String {
        switch self {
        case let .mbedTLS(code, operation):
            let magnitude = code == Int32.min ? UInt32(1) << 31 : UInt32(code.magnitude)
            let sign = code < 0 ? "-" : ""
            return "mbedTLS error \(sign)0x\(String(magnitude, radix: 16, uppercase: true)) in \(operation): \(Self.mbedTLSText(code))"
        case let .invalidKey(why):
            return "invalid key: \(why)"
        case let .invalidInput(why):
            return "invalid input: \(why)"
        case .authenticationFailed:
            return "authentication failed: AES-GCM tag mismatch"
        case let .privateKeyRefused(refusal):
            return "private key refused: \(refusal)"
        }
    }

    /// mbedTLS's own text for an error code (its high- and low-level parts).
    static func mbedTLSText(_ code: Int32) -> String {
        var buffer = [CChar](repeating: 0, count: 160)
        mbedtls_strerror(code, &buffer, buffer.count)
        return String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    /// Turns a non-zero mbedTLS return value into a thrown error.
    @inline(__always)
    static func check(_ code: Int32, _ operation: @autoclosure () -> String) throws(CryptoError) {
        if code != 0 { throw CryptoError.mbedTLS(code: code, operation: operation()) }
    }
}
