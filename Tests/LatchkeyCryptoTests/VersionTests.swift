import Testing
@testable import LatchkeyCrypto
@Test func versionIs228() { #expect(MbedTLSInfo.version.hasPrefix("2.28")) }
