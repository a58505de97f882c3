// swift-tools-version:6.0
import PackageDescription

// A program that uses Latchkey as a library user does, its products only. The path dependency lets
// it build inside this repository; Tests/Examples/run-library-user.sh replaces that line with
// `.package(url: "file://<tagged clone>", from: "<version>")`, as a user's package has it, then
// builds it and runs it against the scripted server. Every source file is a snippet of
// docs/library.md (Tests/Examples/check-library-snippets.sh).
let package = Package(
    name: "LibraryUser",
    platforms: [.macOS(.v15)],
    dependencies: [.package(name: "Latchkey", path: "../../..")],
    targets: [
        .executableTarget(
            name: "library-user",
            dependencies: [
                .product(name: "Latchkey", package: "Latchkey"),
                .product(name: "LatchkeyCrypto", package: "Latchkey"),
                .product(name: "LatchkeyHTTP", package: "Latchkey")
            ],
            swiftSettings: [.swiftLanguageMode(.v6)]),
        // docs/library.md's LatchkeyTesting snippet, compiled and run as a test.
        .testTarget(
            name: "LibraryUserTests",
            dependencies: [
                .product(name: "Latchkey", package: "Latchkey"),
                .product(name: "LatchkeyHTTP", package: "Latchkey"),
                .product(name: "LatchkeyTesting", package: "Latchkey")
            ],
            path: "TestingSnippets", swiftSettings: [.swiftLanguageMode(.v6)])
    ]
)
