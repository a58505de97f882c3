// swift-tools-version:6.0
import PackageDescription

// Layering, bottom up: CMbedTLS → LatchkeyCrypto → LatchkeyHTTP / LatchkeyJOSE → Latchkey →
// LatchkeyRegistration → latchkey;
// LatchkeyQR depends on nothing; LatchkeyTesting (the shipped test doubles) sits over Latchkey;
// LatchkeyFoundationCompat sits beside the CLI, over Latchkey, and is the only module importing Foundation.
// A lower module never imports a higher one (docs/architecture.md).
let strict: [SwiftSetting] = [.swiftLanguageMode(.v6)]
// No unsafe flags in a target of a library product: SwiftPM refuses a package required by version
// whose products contain any (Tests/Examples/run-library-user.sh checks it as a user would). The
// size flags of the shipped binary (-Osize, no implicit `_StringProcessing` import) are given where
// that binary is made, device/build-static.sh.
let shipped: [SwiftSetting] = strict

let package = Package(
    name: "Latchkey",
    // No `platforms:`: Linux with glibc is the one platform (docs/library.md "Platforms"); a macOS
    // minimum here would claim a build that no one makes.
    // Every module a library user meets in the public API is a product (docs/library.md).
    products: [
        .library(name: "Latchkey", targets: ["Latchkey"]),
        // Dynamic client registration (RFC 7591/7592) and the device's own registration, apart from
        // the core as golang/oauth2 keeps clientcredentials/ apart.
        .library(name: "LatchkeyRegistration", targets: ["LatchkeyRegistration"]),
        .library(name: "LatchkeyCrypto", targets: ["LatchkeyCrypto"]),
        .library(name: "LatchkeyHTTP", targets: ["LatchkeyHTTP"]),
        .library(name: "LatchkeyJOSE", targets: ["LatchkeyJOSE"]),
        // Foundation conveniences (URL, Date, Data) for library users; never linked into the CLI.
        .library(name: "LatchkeyFoundationCompat", targets: ["LatchkeyFoundationCompat"]),
        .library(name: "LatchkeyQR", targets: ["LatchkeyQR"]),
        .library(name: "LatchkeyTesting", targets: ["LatchkeyTesting"]),
        .executable(name: "latchkey", targets: ["latchkey"]),
        .executable(name: "latchkey-bench", targets: ["LatchkeyBench"])
    ],
    targets: [
        .systemLibrary(name: "CMbedTLS", path: "Sources/CMbedTLS"),
        .target(name: "LatchkeyCrypto", dependencies: ["CMbedTLS"], swiftSettings: shipped),
        .target(name: "LatchkeyHTTP", dependencies: ["CMbedTLS", "LatchkeyCrypto"], swiftSettings: shipped),
        .target(name: "LatchkeyJOSE", dependencies: ["LatchkeyCrypto"], swiftSettings: shipped),
        .target(name: "Latchkey", dependencies: ["LatchkeyCrypto", "LatchkeyHTTP", "LatchkeyJOSE"], swiftSettings: shipped),
        .target(
            name: "LatchkeyRegistration", dependencies: ["Latchkey", "LatchkeyCrypto", "LatchkeyHTTP", "LatchkeyJOSE"],
            swiftSettings: shipped),
        // QR symbols and their writers (terminal, SVG, PNG, PGM); depends on nothing.
        .target(name: "LatchkeyQR", swiftSettings: shipped),
        // Test doubles for library users and Tests/: memory store, scripted transport, virtual clock.
        .target(
            name: "LatchkeyTesting", dependencies: ["LatchkeyJOSE", "Latchkey", "LatchkeyHTTP", "LatchkeyCrypto"], swiftSettings: shipped),
        // The threads behind the CLI's default task executor (no libdispatch worker pools; docs/deploy.md).
        .target(name: "CLatchkeyExecutor", path: "Sources/CLatchkeyExecutor"),
        .executableTarget(
            name: "latchkey", dependencies: ["Latchkey", "LatchkeyRegistration", "LatchkeyQR", "CLatchkeyExecutor"], swiftSettings: shipped),
        // The only module that imports Foundation (docs/architecture.md).
        .target(name: "LatchkeyFoundationCompat", dependencies: ["Latchkey", "LatchkeyHTTP"], swiftSettings: strict),
        // A program that signs in with the library using Foundation types; built in CI, not shipped.
        .executableTarget(
            name: "latchkey-example-foundation",
            dependencies: ["Latchkey", "LatchkeyCrypto", "LatchkeyHTTP", "LatchkeyFoundationCompat"],
            path: "Tests/Examples/SignInWithFoundation", swiftSettings: strict),

        // Benchmarks: release builds only give meaningful figures (docs/performance.md).
        .executableTarget(
            name: "LatchkeyBench", dependencies: ["CMbedTLS", "LatchkeyCrypto", "LatchkeyJOSE", "Latchkey"],
            path: "Benchmarks/LatchkeyBench", swiftSettings: strict),

        // libFuzzer targets: `swift build --sanitize=fuzzer --product NAME` (Fuzz/README.md).
        .executableTarget(name: "FuzzJWS", dependencies: ["LatchkeyJOSE"], path: "Fuzz/FuzzJWS", swiftSettings: strict),
        .executableTarget(name: "FuzzJWKS", dependencies: ["LatchkeyJOSE"], path: "Fuzz/FuzzJWKS", swiftSettings: strict),
        .executableTarget(name: "FuzzJSON", dependencies: ["LatchkeyJOSE", "Latchkey"], path: "Fuzz/FuzzJSON", swiftSettings: strict),
        .executableTarget(name: "FuzzHTTPResponse", dependencies: ["LatchkeyHTTP"], path: "Fuzz/FuzzHTTPResponse", swiftSettings: strict),
        .executableTarget(name: "FuzzHTTPURL", dependencies: ["LatchkeyHTTP"], path: "Fuzz/FuzzHTTPURL", swiftSettings: strict),
        .executableTarget(
            name: "FuzzAuthenticationChallenge", dependencies: ["Latchkey"], path: "Fuzz/FuzzAuthenticationChallenge",
            swiftSettings: strict),
        .executableTarget(
            name: "FuzzPEMPrivateKey", dependencies: ["LatchkeyCrypto", "LatchkeyJOSE"], path: "Fuzz/FuzzPEMPrivateKey",
            swiftSettings: strict),
        .executableTarget(name: "FuzzTokenFile", dependencies: ["Latchkey"], path: "Fuzz/FuzzTokenFile", swiftSettings: strict),
        .executableTarget(
            name: "FuzzCredentialRequest", dependencies: ["Latchkey"], path: "Fuzz/FuzzCredentialRequest", swiftSettings: strict),
        .executableTarget(
            name: "FuzzClientMetadata", dependencies: ["Latchkey", "LatchkeyRegistration", "LatchkeyJOSE"], path: "Fuzz/FuzzClientMetadata",
            swiftSettings: strict),
        .executableTarget(
            name: "FuzzTokenExchangeAnswer", dependencies: ["Latchkey", "LatchkeyHTTP", "LatchkeyJOSE"],
            path: "Fuzz/FuzzTokenExchangeAnswer", swiftSettings: strict),
        .executableTarget(
            name: "FuzzResourceMetadata", dependencies: ["Latchkey", "LatchkeyHTTP", "LatchkeyJOSE"], path: "Fuzz/FuzzResourceMetadata",
            swiftSettings: strict),
        .executableTarget(
            name: "FuzzClientIdentity", dependencies: ["LatchkeyHTTP", "LatchkeyCrypto"], path: "Fuzz/FuzzClientIdentity",
            swiftSettings: strict),

        // Shared by the process-level suites: spawning `latchkey`, starting scripted servers, paths.
        .target(name: "LatchkeyTestSupport", path: "Tests/Support", swiftSettings: strict),

        .testTarget(
            name: "LatchkeyCryptoTests", dependencies: ["LatchkeyCrypto", "LatchkeyTestSupport", "LatchkeyTesting"], swiftSettings: strict),
        .testTarget(name: "LatchkeyJOSETests", dependencies: ["LatchkeyJOSE", "LatchkeyTestSupport"], swiftSettings: strict),
        .testTarget(name: "LatchkeyHTTPTests", dependencies: ["LatchkeyHTTP"], swiftSettings: strict),
        .testTarget(
            name: "LatchkeyTests", dependencies: ["Latchkey", "LatchkeyRegistration", "LatchkeyTestSupport", "LatchkeyTesting"],
            swiftSettings: strict),
        .testTarget(name: "LatchkeyStoreTests", dependencies: ["Latchkey"], swiftSettings: strict),
        .testTarget(name: "LatchkeyQRTests", dependencies: ["LatchkeyQR", "LatchkeyTestSupport"], swiftSettings: strict),
        .testTarget(name: "LatchkeyTestingTests", dependencies: ["LatchkeyTesting", "Latchkey", "LatchkeyHTTP"], swiftSettings: strict),
        .testTarget(
            name: "LatchkeyFoundationCompatTests", dependencies: ["LatchkeyFoundationCompat", "Latchkey", "LatchkeyHTTP"],
            swiftSettings: strict),
        // Drives the built `latchkey` binary; needs the harness (Tests/Harness) for IdP scenarios.
        .testTarget(
            name: "CLITests", dependencies: ["latchkey", "LatchkeyRegistration", "LatchkeyTestSupport", "LatchkeyJOSE", "LatchkeyTesting"],
            swiftSettings: strict),
        // Needs Glewlwyd started by Tests/run-all.sh (environment variables LATCHKEY_IT_*).
        .testTarget(name: "IntegrationTests", dependencies: ["latchkey", "LatchkeyTestSupport", "LatchkeyJOSE"], swiftSettings: strict)
    ]
)
