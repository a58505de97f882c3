import LatchkeyCrypto

/// The tool's version, printed by `--version` together with the linked mbedTLS.
enum ToolVersion {
    /// Semantic version of this build.
    static let number = "0.1.0"

    /// `latchkey X.Y.Z (mbedTLS 3.6.x)`.
    static var line: String { "latchkey \(number) (mbedTLS \(MbedTLSInfo.version))" }
}
