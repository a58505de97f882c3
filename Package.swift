// swift-tools-version:6.0
import PackageDescription

// Layering, bottom up: CMbedTLS → LatchkeyCrypto → LatchkeyHTTP → LatchkeyJOSE → Latchkey → latchkey.
// A lower module never imports a higher one (docs/architecture.md).
let strict: [SwiftSetting] = [.swiftLanguageMode(.v6)]

let package = Package(
    name: "Latchkey",
    platforms: [.macOS(.v13)],
    products: [
        .library(name: "Latchkey", targets: ["Latchkey"]),
        .executable(name: "latchkey", targets: ["latchkey"]),
    ],
    targets: [
        .systemLibrary(name: "CMbedTLS", path: "Sources/CMbedTLS"),
        .target(name: "LatchkeyCrypto", dependencies: ["CMbedTLS"], swiftSettings: strict),
        .target(name: "LatchkeyHTTP", dependencies: ["CMbedTLS", "LatchkeyCrypto"], swiftSettings: strict),
        .target(name: "LatchkeyJOSE", dependencies: ["LatchkeyCrypto"], swiftSettings: strict),
        .target(name: "Latchkey", dependencies: ["LatchkeyCrypto", "LatchkeyHTTP", "LatchkeyJOSE"], swiftSettings: strict),
        .executableTarget(name: "latchkey", dependencies: ["Latchkey"], swiftSettings: strict),

        .testTarget(name: "LatchkeyCryptoTests", dependencies: ["LatchkeyCrypto"], swiftSettings: strict),
    ]
)
