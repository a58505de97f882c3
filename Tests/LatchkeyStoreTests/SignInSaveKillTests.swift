import FoundationEssentials
import Glibc
import Latchkey
import LatchkeyCrypto
import LatchkeyHTTP
import Synchronization
import Testing

/// A sign-in writes two files, the profile (`profiles/NAME.json`) and the token file. A SIGKILL
/// after any one write must leave a pair that belongs together: the old profile with the old
/// tokens, the new profile with the new tokens, or a profile with no tokens (not signed in) —
/// never the tokens of one client under the profile of another.
///
/// The sign-in runs in a child (this test runner, re-invoked with `writerVariable` set, as
/// `CrashSafetyTests` does); it kills itself right after its Nth write (`killAfterVariable`).
@Suite struct SignInSaveKillTests {
    static let writerVariable = "LATCHKEY_SIGNIN_KILL_DIR"
    static let killAfterVariable = "LATCHKEY_SIGNIN_KILL_AFTER"
    static let issuer = "https://idp.example.test/realm"
    static let profile = "default"

    /// The settings of the profile before (client `old-client`) and after (`new-client`) the sign-in.
    static func settings(client: String) -> ProfileSettings {
        ProfileSettings(
            client: ClientConfiguration(
                issuer: issuer, clientID: client, scopes: ["machine"],
                authMethod: .clientSecretBasic, dpop: .never),
            keySource: .machine)
    }

    static func metadata() -> ProviderMetadata {
        var m = ProviderMetadata(issuer: issuer)
        m.tokenEndpoint = issuer + "/token"
        return m
    }

    /// In a child: sign in as `new-client` over the old pair, dying after write number `KILL_AFTER`.
    /// In a normal run: the same sign-in without a kill leaves exactly the new pair.
    @Test func signInChildOrWholeSignIn() async throws {
        if let directory = getenv(Self.writerVariable).map({ String(cString: $0) }) {
            let killAfter = getenv(Self.killAfterVariable).flatMap { Int(String(cString: $0)) } ?? 0
            try await Self.signIn(directory: directory, killAfter: killAfter)
            Issue.record("the sign-in finished before write \(killAfter)")
            return
        }
        let tmp = TemporaryDirectory("signin-save")
        try await Self.writeOldPair(tmp.path)
        let writes = try await Self.signIn(directory: tmp.path, killAfter: 0)
        #expect(writes >= 2)
        let (profile, tokens) = try Self.pair(tmp.path)
        #expect(profile?.client.clientID == "new-client")
        #expect(tokens?.clientID == "new-client" && tokens?.token.accessToken == "new-access")
    }

    /// Kills the sign-in after each of its writes in turn and checks the pair left behind.
    @Test func aKillAfterAnyWriteLeavesAPairThatBelongsTogether() async throws {
        let probe = TemporaryDirectory("signin-probe")
        try await Self.writeOldPair(probe.path)
        let writes = try await Self.signIn(directory: probe.path, killAfter: 0)
        for point in 1...writes {
            let tmp = TemporaryDirectory("signin-kill\(point)")
            try await Self.writeOldPair(tmp.path)
            let child = try #require(
                ChildProcess.spawn(
                    ChildProcess.currentExecutable(),
                    ["--testing-library", "swift-testing", "--filter", "SignInSaveKillTests/signInChildOrWholeSignIn"],
                    extraEnvironment: [Self.writerVariable: tmp.path, Self.killAfterVariable: String(point)]))
            let status = ChildProcess.wait(child)
            #expect(status & 0x7f == SIGKILL, "kill after write \(point): the child was not killed (status \(status))")
            let (profile, tokens) = try Self.pair(tmp.path)
            let client = try #require(profile?.client.clientID, "kill after write \(point): no profile left")
            if let tokens {
                #expect(
                    tokens.clientID == client,
                    "kill after write \(point): tokens of \(tokens.clientID) under the profile of \(client)")
                #expect(
                    tokens.token.accessToken == (client == "new-client" ? "new-access" : "old-access"),
                    "kill after write \(point): \(tokens.token.accessToken) under the profile of \(client)")
            }
        }
    }

    /// The pair before the sign-in: `old-client`'s profile and tokens.
    static func writeOldPair(_ directory: String) async throws {
        let old = settings(client: "old-client")
        try ProfileStore(stateDirectory: directory).save(old, profile: profile)
        let now = Timestamp(timeIntervalSince1970: 1_800_000_000)
        let session = StoredSession(
            profile: profile, issuer: issuer, clientID: "old-client",
            token: Token(accessToken: "old-access", expiresAt: now.addingTimeInterval(3600)),
            subject: "old-client", metadata: metadata(), createdAt: now, updatedAt: now)
        let store = Fixture.store(directory)
        try await store.withLock { try store.save(session) }
    }

    /// What is on disk: the profile's settings and the stored session.
    static func pair(_ directory: String) throws -> (ProfileSettings?, StoredSession?) {
        (try ProfileStore(stateDirectory: directory).load(profile), try Fixture.store(directory).load())
    }

    /// Signs in as `new-client` the way `latchkey login` does and returns how many writes it made;
    /// with `killAfter` > 0 the process dies with SIGKILL right after that write.
    @discardableResult
    static func signIn(directory: String, killAfter: Int) async throws -> Int {
        let writes = WriteCounter(killAfter: killAfter)
        let store = CountingStore(inner: Fixture.store(directory), writes: writes)
        let new = settings(client: "new-client")
        let session = Session(
            configuration: new.client, store: store, transport: TokenEndpoint(), random: try SecureRandom(),
            clientSecret: "machine-secret")
        let profiles = ProfileStore(stateDirectory: directory)
        try await session.signIn(
            flow: .clientCredentials, metadata: metadata(),
            alongside: { _ in
                try profiles.save(new, profile: profile)
                writes.wrote()
            })
        return writes.count
    }
}

/// Counts the writes of one sign-in and kills the process right after write `killAfter`.
final class WriteCounter: Sendable {
    let killAfter: Int
    private let made = Mutex(0)
    init(killAfter: Int) { self.killAfter = killAfter }
    var count: Int { made.withLock { $0 } }
    func wrote() {
        let n = made.withLock {
            $0 += 1; return $0
        }
        if n == killAfter { kill(getpid(), SIGKILL) }
    }
}

/// A token store that reports each of its writes (save, delete) to a `WriteCounter`.
struct CountingStore: TokenStore {
    let inner: EncryptedFileTokenStore
    let writes: WriteCounter
    var profile: String { inner.profile }
    func load() throws(TokenStoreError) -> StoredSession? { try inner.load() }
    func save(_ session: StoredSession) throws(TokenStoreError) { try inner.save(session); writes.wrote() }
    func delete() throws(TokenStoreError) { try inner.delete(); writes.wrote() }
    func withLock<T: Sendable>(_ body: @Sendable () async throws -> T) async throws -> T { try await inner.withLock(body) }
}

/// A token endpoint that answers every client-credentials request with `new-access`.
struct TokenEndpoint: HTTPTransport {
    func send(_ request: HTTPRequest) async throws -> HTTPResponse {
        HTTPResponse(
            status: 200, headers: [(name: "Content-Type", value: "application/json")],
            body: Array(#"{"access_token":"new-access","token_type":"Bearer","expires_in":300}"#.utf8),
            url: request.url)
    }
}
