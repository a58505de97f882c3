internal import CMbedTLS

/// Version of the linked mbedTLS, e.g. "3.6.6" (or "2.28.3" in a build against Debian 12's).
package enum MbedTLSInfo {
    /// The version string reported by the linked mbedTLS library.
    package static var version: String {
        var buf = [CChar](repeating: 0, count: 32)
        mbedtls_version_get_string(&buf)
        return String(decoding: buf.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }
}

/// The library's one-time global set-up: mbedTLS 3.x runs TLS 1.3, key parsing and pair checks
/// through PSA, which must be initialised before any of them (2.28 needs nothing). Every entry point
/// that reaches such an operation reads `isReady` first; Swift runs the initialiser once.
package enum MbedTLSLibrary {
    /// False only when PSA could not start (no entropy source).
    package static let isReady: Bool = latchkey_library_init() == 0
}
