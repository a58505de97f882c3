internal import CMbedTLS
/// Version of the linked mbedTLS, e.g. "2.28.3".
package enum MbedTLSInfo {
    /// The version string reported by the linked mbedTLS library.
    public static var version: String {
        var buf = [CChar](repeating: 0, count: 32)
        mbedtls_version_get_string(&buf)
        return String(decoding: buf.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }
}
