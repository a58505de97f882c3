import FoundationEssentials
import Glibc
import Latchkey
import LatchkeyCrypto
import LatchkeyHTTP

/// A fresh directory under /tmp, removed when the value is released.
final class TemporaryDirectory: @unchecked Sendable {
    let path: String

    init(_ label: String = "store") {
        var template = Array("/tmp/latchkey-\(label)-XXXXXX".utf8CString)
        let made = template.withUnsafeMutableBufferPointer { mkdtemp($0.baseAddress!) }
        precondition(made != nil, "mkdtemp failed: \(errno)")
        path = String(cString: made!)
    }

    deinit { try? FileManager.default.removeItem(atPath: path) }
}

/// Test data and small file helpers shared by the store suites.
enum Fixture {
    /// The passphrase used by passphrase-source tests.
    static let passphrase = Array("correct horse battery staple".utf8)

    /// A session whose every secret field carries `generation`, so a reader can tell a whole
    /// session from a mix of two.
    static func session(profile: String = "default", generation: Int = 1) -> StoredSession {
        var metadata = ProviderMetadata(issuer: "https://idp.example.test/realm")
        metadata.tokenEndpoint = "https://idp.example.test/realm/token"
        metadata.jwksURI = "https://idp.example.test/realm/jwks"
        metadata.idTokenSigningAlgValuesSupported = ["RS256", "ES256"]
        let token = Token(
            accessToken: "access-\(generation)-" + String(repeating: "a", count: 200),
            refreshToken: "refresh-\(generation)",
            expiresAt: Timestamp(timeIntervalSince1970: 1_900_000_000 + Double(generation)),
            scope: "openid offline_access gen\(generation)",
            idToken: "eyJhbGciOiJSUzI1NiJ9.eyJzdWIiOiJnZW4\(generation)In0.c2ln")
        return StoredSession(
            profile: profile, issuer: metadata.issuer, clientID: "latchkey-test",
            token: token, subject: "user-\(generation)", idTokenClaimsJSON: "{\"sub\":\"user-\(generation)\"}",
            metadata: metadata, createdAt: Timestamp(timeIntervalSince1970: 1_800_000_000),
            updatedAt: Timestamp(timeIntervalSince1970: 1_800_000_000 + Double(generation)))
    }

    /// The generation a session was made with, or nil when its fields disagree (a torn write).
    static func generation(of session: StoredSession) -> Int? {
        guard session.token.refreshToken?.hasPrefix("refresh-") == true,
            let number = Int(session.token.refreshToken!.dropFirst("refresh-".count))
        else { return nil }
        return session == Self.session(profile: session.profile, generation: number) ? number : nil
    }

    /// A store in `directory` with test-friendly defaults.
    static func store(
        _ directory: String, profile: String = "default", keySource: KeySource = .machine,
        environment: [String: String] = [:], passphrase: [UInt8]? = Fixture.passphrase,
        machineIDPath: String = "/etc/machine-id", lockTimeout: Double = 120
    ) -> EncryptedFileTokenStore {
        let secret = passphrase.map { SecretBytes($0) }
        return EncryptedFileTokenStore(
            stateDirectory: directory, profile: profile, keySource: keySource,
            environment: environment, passphrase: { secret },
            machineIDPath: machineIDPath, lockTimeout: lockTimeout)
    }

    /// The bytes at `path`, or nil when it cannot be read.
    static func read(_ path: String) -> [UInt8]? {
        guard let data = FileManager.default.contents(atPath: path) else { return nil }
        return [UInt8](data)
    }

    /// Writes `bytes` to `path` with `mode`, replacing what was there.
    static func write(_ bytes: [UInt8], to path: String, mode: mode_t = 0o600) {
        unlink(path)
        let fd = open(path, O_WRONLY | O_CREAT | O_EXCL, mode)
        precondition(fd >= 0, "open \(path): \(errno)")
        _ = bytes.withUnsafeBytes { Glibc.write(fd, $0.baseAddress, $0.count) }
        fchmod(fd, mode)
        close(fd)
    }

    /// The permission bits of `path`.
    static func mode(_ path: String) -> mode_t? {
        var info = stat()
        guard stat(path, &info) == 0 else { return nil }
        return info.st_mode & 0o7777
    }

    /// True when `error` is a `TokenStoreError` matching `predicate`.
    static func isStoreError(_ error: any Error, _ predicate: (TokenStoreError) -> Bool) -> Bool {
        guard let storeError = error as? TokenStoreError else { return false }
        return predicate(storeError)
    }

    /// Package root, from this file's path: <root>/Tests/LatchkeyStoreTests/StoreFixtures.swift.
    static func packageRoot(_ file: String = #filePath) -> String {
        var parts = file.split(separator: "/", omittingEmptySubsequences: false)
        parts.removeLast(3)
        return parts.joined(separator: "/")
    }

    /// True when the suite runs in CI, where missing prerequisites must fail rather than skip.
    static var isCI: Bool { getenv("CI").map { String(cString: $0) } == "true" }
}
