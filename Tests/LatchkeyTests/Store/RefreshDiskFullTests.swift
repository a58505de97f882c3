import Glibc
import LatchkeyHTTP
import LatchkeyTestSupport
import LatchkeyTesting
import Synchronization
import Testing

@testable import Latchkey

/// A refresh on a full disk (issue 27.1). The provider rotates one-use refresh tokens, so a refresh
/// whose answer cannot be saved loses the session: the space is reserved before anything is sent.
@Suite(.serialized) struct RefreshDiskFullTests {
    let clock = VirtualClock()

    func expired() -> StoredSession {
        let now = clock.now()
        return StoredSession(
            profile: "default", issuer: TestIssuer.issuer, clientID: TestIssuer.clientID,
            token: Token(
                accessToken: "at-1", refreshToken: "rt-1", expiresAt: now.addingTimeInterval(-10),
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

/// The same with the store's space reserver injected (`SpaceReserver`), and the pieces under it.
@Suite struct RefreshReservationTests {
    let clock = VirtualClock()
    let base = RefreshDiskFullTests()

    func temporaries(_ directory: String) -> [String] {
        guard let dir = opendir(directory) else { return [] }
        defer { closedir(dir) }
        var names: [String] = []
        while let entry = readdir(dir) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { String(cString: $0.bindMemory(to: CChar.self).baseAddress!) }
            if name.contains(".tmp-") { names.append(name) }
        }
        return names
    }

    @Test func anInjectedENOSPCSendsNothingKeepsTheSessionAndIsRecorded() async throws {
        let dir = try TemporaryDirectory(prefix: "latchkey-reserve-")
        defer { dir.remove() }
        let store = EncryptedFileTokenStore(
            stateDirectory: dir.path + "/state", profile: "default",
            spaceReserver: .failing(errno: ENOSPC))
        try await store.withLock { try store.save(base.expired()) }
        let before = try store.load()
        let t = base.rotatingServer()
        var caught: LatchkeyError?
        do { _ = try await base.session(store, t).refresh() } catch { caught = error }
        let error = try #require(caught, "the refresh succeeded")
        guard case .storage(let storeError) = error, case .reservationFailed(let path, let code) = storeError else {
            Issue.record("got \(error)")
            return
        }
        #expect(path == store.tokenFilePath && code == ENOSPC)
        #expect(
            storeError.description
                == "cannot reserve space for \(store.tokenFilePath): disk full; the refresh was not attempted and the session is intact")
        #expect(t.sent.isEmpty)
        #expect(try store.load() == before)
        #expect(temporaries(store.stateDirectory).isEmpty, "the staging file must be removed")
        let recorded = try #require(store.lastRefresh())
        #expect(recorded.failure?.contains("disk full") == true, "\(recorded)")
    }

    /// A token that has not expired yet is still handed out when an early refresh cannot reserve
    /// space: nothing was sent, so the session is as good as it was.
    @Test func anEarlyRefreshOnAFullDiskServesTheStillValidToken() async throws {
        let dir = try TemporaryDirectory(prefix: "latchkey-reserve-")
        defer { dir.remove() }
        let store = EncryptedFileTokenStore(
            stateDirectory: dir.path + "/state", profile: "default",
            spaceReserver: .failing(errno: ENOSPC))
        var session = base.expired()
        session.token.expiresAt = clock.now().addingTimeInterval(30)
        try store.save(session)
        let t = base.rotatingServer()
        let token = try await base.session(store, t).validToken(minTTL: 60)
        #expect(token.accessToken == "at-1")
        #expect(t.sent.isEmpty)
        await expectError(category: .storage) { try await base.session(store, t).validToken(minTTL: 60, forceRefresh: true) }
    }

    @Test func aSuccessfulRefreshWritesIntoTheReservedFileAndIsRecorded() async throws {
        let dir = try TemporaryDirectory(prefix: "latchkey-reserve-")
        defer { dir.remove() }
        let sizes = ReservedSizes()
        let store = EncryptedFileTokenStore(
            stateDirectory: dir.path + "/state", profile: "default",
            spaceReserver: SpaceReserver { fd, bytes in
                sizes.append(bytes)
                return AtomicFileWriter.reserveSpace(fd: fd, size: bytes)
            })
        try await store.withLock { try store.save(base.expired()) }
        var info = stat()
        try #require(stat(store.tokenFilePath, &info) == 0)
        let t = base.rotatingServer()
        let refreshed = try await base.session(store, t).refresh()
        #expect(refreshed.token.refreshToken == "rt-2")
        // Sized from what is written (a bound on the sealed session), never below the file read.
        let planned = TokenFile.sealedSizeBound(base.expired())
        #expect(planned >= Int(info.st_size))
        #expect(sizes.all == [max(Int(info.st_size), planned) + EncryptedFileTokenStore.reservationMargin])
        #expect(try store.load()?.token.refreshToken == "rt-2")
        #expect(temporaries(store.stateDirectory).isEmpty)
        #expect(store.lastRefresh()?.failure == nil && store.lastRefresh() != nil)
        // The file was cut to what was written: it decodes, and is not the reserved size.
        try #require(stat(store.tokenFilePath, &info) == 0)
        #expect(Int(info.st_size) < EncryptedFileTokenStore.reservationMargin)
    }

    /// Where the file system has no fallocate (EOPNOTSUPP), zeros are written over the range; on a
    /// full disk that fails with ENOSPC as fallocate would.
    @Test func withoutFallocateZerosReserveTheSpace() throws {
        let dir = try TemporaryDirectory(prefix: "latchkey-reserve-")
        defer { dir.remove() }
        let fd = open(dir.path + "/f", O_RDWR | O_CREAT | O_EXCL, 0o600)
        try #require(fd >= 0)
        defer { close(fd) }
        #expect(AtomicFileWriter.reserveSpace(fd: fd, size: 10_000, allocate: { _, _, _ in EOPNOTSUPP }) == 0)
        var info = stat()
        #expect(fstat(fd, &info) == 0 && info.st_size == 10_000 && info.st_blocks * 512 >= 10_000)

        let disk = try SmallTmpfs(kilobytes: 64)
        defer { disk.unmount() }
        try disk.fill()
        let full = open(disk.path + "/g", O_RDWR | O_CREAT | O_EXCL, 0o600)
        try #require(full >= 0)
        defer { close(full) }
        #expect(AtomicFileWriter.reserveSpace(fd: full, size: 10_000, allocate: { _, _, _ in EOPNOTSUPP }) == ENOSPC)
        #expect(AtomicFileWriter.reserveSpace(fd: full, size: 10_000) == ENOSPC)
    }

    @Test func theRecordRoundTripsAsOneSafeLine() throws {
        let at = Timestamp(timeIntervalSince1970: 1_800_000_000)
        #expect(RefreshRecordFile.parse(Array("refresh 1800000000 ok\n".utf8) + [0, 0]) == RefreshAttempt(at: at))
        #expect(
            RefreshRecordFile.parse(Array("refresh 1800000000 failed disk full: x y\n".utf8))
                == RefreshAttempt(at: at, failure: "disk full: x y"))
        #expect(RefreshRecordFile.parse([0, 0, 0]) == nil)
        #expect(RefreshRecordFile.parse(Array("garbage".utf8)) == nil)
        let dir = try TemporaryDirectory(prefix: "latchkey-record-")
        defer { dir.remove() }
        let path = dir.path + "/default.lock"
        #expect(FileText.write("", to: path))
        RefreshRecordFile.write(
            RefreshAttempt(at: at, failure: "bad\u{1B}[31m\nline " + String(repeating: "é", count: 400)), lockPath: path)
        let read = try #require(RefreshRecordFile.read(lockPath: path))
        #expect(read.at == at)
        let failure = try #require(read.failure)
        #expect(failure.hasPrefix("bad?[31m?line é") && !failure.unicodeScalars.contains { $0.value < 0x20 })
        var info = stat()
        #expect(stat(path, &info) == 0 && info.st_size == RefreshRecordFile.slotSize)
    }
}

/// Collects the sizes a reserver was asked for.
final class ReservedSizes: Sendable {
    private let sizes = Mutex<[Int]>([])
    func append(_ size: Int) { sizes.withLock { $0.append(size) } }
    var all: [Int] { sizes.withLock { $0 } }
}

/// Issue 27.11: the standard margin is 60 s, or half the lifetime of a token that lives less.
@Suite struct RefreshMarginTests {
    func session(lifetime: Double, obtained: Timestamp) -> StoredSession {
        StoredSession(
            profile: "default", issuer: TestIssuer.issuer, clientID: TestIssuer.clientID,
            token: Token(accessToken: "at-1", refreshToken: "rt-1", expiresAt: obtained.addingTimeInterval(lifetime)),
            metadata: testMetadata(), createdAt: obtained, updatedAt: obtained)
    }

    @Test func theStandardMarginIsCappedAtHalfTheLifetime() {
        let t0 = Timestamp(timeIntervalSince1970: 1_800_000_000)
        #expect(RefreshMargin.standard.seconds(for: session(lifetime: 3600, obtained: t0)) == 60)
        #expect(RefreshMargin.standard.seconds(for: session(lifetime: 30, obtained: t0)) == 15)
        #expect(RefreshMargin.standard.seconds(for: session(lifetime: 120, obtained: t0)) == 60)
        // The acceptance store suite's 70 s token is refreshed when 58 s are left: 60 s or more keeps 60.
        #expect(RefreshMargin.standard.seconds(for: session(lifetime: 70, obtained: t0)) == 60)
        #expect(RefreshMargin.standard.seconds(for: session(lifetime: 59, obtained: t0)) == 29.5)
        #expect(RefreshMargin.seconds(60).seconds(for: session(lifetime: 30, obtained: t0)) == 60)
        let short = session(lifetime: 30, obtained: t0)
        #expect(short.isFresh(at: t0.addingTimeInterval(14), margin: .standard))
        #expect(!short.isFresh(at: t0.addingTimeInterval(16), margin: .standard))
        #expect(!short.isFresh(at: t0, margin: .seconds(60)))
    }

    @Test func validTokenWithTheStandardMarginDoesNotRefreshAThirtySecondToken() async throws {
        let clock = VirtualClock()
        let store = MemoryTokenStore(session(lifetime: 30, obtained: clock.now()))
        let t = RefreshDiskFullTests().rotatingServer()
        let s = Session(configuration: testConfiguration(), store: store, transport: t, time: clock, random: CountingRandom())
        #expect(try await s.validToken(margin: .standard).accessToken == "at-1")
        #expect(t.sent.isEmpty)
        #expect(try await s.validToken(margin: .seconds(60)).accessToken == "at-2")
    }
}
