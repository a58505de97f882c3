import Glibc
import Latchkey
import LatchkeyHTTP
import LatchkeyTestSupport
import Testing

/// A signed-in profile made through the storage API, as `login` leaves it, with no server: for the
/// process tests that only read a session (an issuer nothing listens on, a valid access token).
enum StoredSessionFixture {
    static let issuer = "http://127.0.0.1:1"

    /// A session granted `scope`, with or without a refresh token, and no ID token.
    static func session(scope: String? = "openid", refreshToken: Bool = true) -> StoredSession {
        var metadata = ProviderMetadata(issuer: issuer)
        metadata.tokenEndpoint = issuer + "/token"
        let now = Timestamp.now()
        let token = Token(
            accessToken: "access-token-1", tokenType: "Bearer",
            refreshToken: refreshToken ? "refresh-token-1" : nil,
            expiresAt: now.addingTimeInterval(3600), scope: scope)
        return StoredSession(
            profile: "default", issuer: issuer, clientID: "cli", token: token,
            metadata: metadata, createdAt: now, updatedAt: now)
    }

    /// The state folder and `profiles/` (0700) and a profile file for `keySource`.
    static func writeProfile(_ cli: LatchkeyCommand, keySource: String = "machine") {
        let state = cli.stateDirectory
        mkdir(state, 0o700)
        mkdir(state + "/profiles", 0o700)
        #expect(
            FileText.write(
                #"{"issuer":"\#(issuer)","client_id":"cli","key_source":"\#(keySource)"}"#,
                to: state + "/profiles/default.json"))
    }

    /// The profile plus `session(scope:refreshToken:)` sealed with the machine key.
    static func signIn(_ cli: LatchkeyCommand, scope: String? = "openid", refreshToken: Bool = true) throws {
        writeProfile(cli)
        try EncryptedFileTokenStore(stateDirectory: cli.stateDirectory, profile: "default", keySource: .machine)
            .save(session(scope: scope, refreshToken: refreshToken))
    }
}
