import CMbedTLS
import Testing

@testable import LatchkeyCrypto

/// The library builds against Debian 12's mbedTLS 2.28 and Debian 13's 3.6 LTS (the shipped binary);
/// the linked library must be the one whose headers the shim was compiled with (an -I without the
/// matching -L would mix 3.6 headers with 2.28 archives).
@Test func linkedVersionIsTheHeadersVersion() {
    #expect(MbedTLSInfo.version == MBEDTLS_VERSION_STRING)
    #expect(MbedTLSInfo.version.hasPrefix("2.28.") || MbedTLSInfo.version.hasPrefix("3.6."), "\(MbedTLSInfo.version)")
}

/// With 3.x, PSA starts (TLS 1.3 and key parsing need it) and TLS 1.3 is compiled in.
@Test func mbedTLS3HasPSAAndTLS13() {
    #expect(MbedTLSLibrary.isReady)
    if MbedTLSInfo.version.hasPrefix("3.") {
        #expect(latchkey_tls_max_version() == 0x0304)
        #expect(mbedtls_version_check_feature("MBEDTLS_SSL_PROTO_TLS1_3") == 0)
        #expect(mbedtls_version_check_feature("MBEDTLS_PSA_CRYPTO_C") == 0)
    }
}
