import Glibc
import Testing
import LatchkeyHTTP
@testable import Latchkey
import LatchkeyTestSupport
import LatchkeyTesting

/// A refresh on a full disk (issue 27.1). The provider rotates one-use refresh tokens, so a refresh
/// whose answer cannot be saved loses the session: the space is reserved before anything is sent.
@Suite(.serialized) struct RefreshDiskFullTests {
    let clock = VirtualClock()

    func expired() -> StoredSession {
        let now = clock.now()
        return StoredSession(profile: "default", issuer: TestIssuer.issuer, clientID: TestIssuer.clientID,
                             token: Token(accessToken: "at-1", refreshToken: "rt-1", expiresAt: now.addingTimeInterval(-10),
                                          scope: "openid offline_access"),
                             subject: "user-1", metadata: testMetadata(), createdAt: now, updatedAt: now)
    }

    /// A token endpoint that rotates the refresh token, as Glewlwyd's one-use tokens do.
    func rotatingServer() -> ScriptedTransport {
        ScriptedTransport(clock: clock) { r, index in
            guard r.url.path == "/token" else { return Reply.empty(404) }
            let n = index + 2
            return Reply.json(200, #"{"access_token":"at-\#(n)","token_type":"Bearer","expires_in":3600,"refresh_token":"rt-\#(n)"}"#)
        }
    }

    func session(_ store: any TokenStore, _ transport: ScriptedTransport) -> Session {
        Session(configuration: testConfiguration(), store: store, transport: transport, time: clock, random: CountingRandom())
    }

    /// On a really full tmpfs: no request is sent, the stored refresh token is the one the
    /// provider still accepts, and once space is freed the refresh goes through with it.
    @Test func aFullDiskSendsNoRefreshAndKeepsTheRefreshToken() async throws {
        let disk = try SmallTmpfs(kilobytes: 128)
        defer { disk.unmount() }
        let store = EncryptedFileTokenStore(stateDirectory: disk.path, profile: "default")
        // As a login does: the session saved under the lock (which creates the lock file).
        try await store.withLock { try store.save(expired()) }
        try disk.fill()

        let t = rotatingServer()
        await expectError(category: .storage) { try await session(store, t).refresh() }
        #expect(t.sent(to: "/token").isEmpty, "a refresh was sent although its answer could not be saved")
        #expect(try store.load()?.token.refreshToken == "rt-1")

        disk.free()
        let refreshed = try await session(store, t).refresh()
        #expect(t.sent(to: "/token").map { $0.form["refresh_token"] } == ["rt-1"])
        #expect(refreshed.token.refreshToken == "rt-2")
        #expect(try store.load()?.token.refreshToken == "rt-2")
    }
}
