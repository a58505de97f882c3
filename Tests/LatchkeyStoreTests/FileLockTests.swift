import FoundationEssentials
import Glibc
import Latchkey
import Synchronization
import Testing

/// `withLock` is an exclusive `flock` shared with other processes, released on every exit path.
@Suite struct FileLockTests {
    static let flockTool = "/usr/bin/flock"

    /// Starts `/usr/bin/flock` holding `lockPath` for `seconds`; returns once it holds the lock.
    func holdLockFromAnotherProcess(_ lockPath: String, seconds: Double, in directory: String) throws -> pid_t? {
        guard access(Self.flockTool, X_OK) == 0 else {
            #expect(!Fixture.isCI, "\(Self.flockTool) (util-linux) is needed in CI")
            print("skipped: \(Self.flockTool) not installed")
            return nil
        }
        let ready = directory + "/holder-ready"
        let pid = try #require(ChildProcess.spawn(Self.flockTool, ["-x", lockPath, "/bin/sh", "-c", "touch '\(ready)'; sleep \(seconds)"]))
        for _ in 0..<500 where access(ready, F_OK) != 0 { usleep(10_000) }
        try #require(access(ready, F_OK) == 0, "the flock holder never started")
        return pid
    }

    @Test func waitsForALockHeldByAnotherProcess() async throws {
        let tmp = TemporaryDirectory()
        let store = Fixture.store(tmp.path)
        try await store.withLock {}  // creates the lock file
        guard let holder = try holdLockFromAnotherProcess(store.lockFilePath, seconds: 0.8, in: tmp.path) else { return }
        let start = ContinuousClock.now
        let holderWasGone = try await store.withLock { ChildProcess.hasExited(holder) }
        let waited = ContinuousClock.now - start
        #expect(holderWasGone, "withLock ran while another process held the lock")
        #expect(waited > .milliseconds(300))
    }

    @Test func anotherProcessCannotTakeTheLockWhileWeHoldIt() async throws {
        let tmp = TemporaryDirectory()
        let store = Fixture.store(tmp.path)
        guard access(Self.flockTool, X_OK) == 0 else {
            #expect(!Fixture.isCI, "\(Self.flockTool) (util-linux) is needed in CI")
            return
        }
        let path = store.lockFilePath
        let whileHeld = try await store.withLock { ChildProcess.run(Self.flockTool, ["-n", "-x", path, "true"]) }
        #expect(whileHeld == 1, "flock -n must fail while withLock holds the lock")
        #expect(ChildProcess.run(Self.flockTool, ["-n", "-x", path, "true"]) == 0, "released after withLock")
        #expect(Fixture.mode(path) == 0o600)
    }

    @Test func tasksInOneProcessExcludeEachOther() async throws {
        let tmp = TemporaryDirectory()
        let store = Fixture.store(tmp.path)
        let overlap = OverlapMeter()
        try await withThrowingTaskGroup(of: Void.self) { group in
            for _ in 0..<16 {
                group.addTask {
                    try await store.withLock {
                        overlap.enter()
                        try await Task.sleep(nanoseconds: 2_000_000)
                        overlap.leave()
                    }
                }
            }
            try await group.waitForAll()
        }
        #expect(overlap.maximum == 1)
    }

    /// Counts how many bodies run at once.
    final class OverlapMeter: Sendable {
        private let state = Mutex((inside: 0, maximum: 0))
        func enter() {
            state.withLock {
                $0.inside += 1; $0.maximum = max($0.maximum, $0.inside)
            }
        }
        func leave() { state.withLock { $0.inside -= 1 } }
        var maximum: Int { state.withLock { $0.maximum } }
    }

    struct BodyFailed: Error {}

    @Test func releasedWhenTheBodyThrows() async throws {
        let tmp = TemporaryDirectory()
        let store = Fixture.store(tmp.path, lockTimeout: 2)
        await #expect(throws: BodyFailed.self) { try await store.withLock { throw BodyFailed() } }
        let value = try await store.withLock { 42 }
        #expect(value == 42)
    }

    @Test func givesUpAfterTheTimeout() async throws {
        let tmp = TemporaryDirectory()
        let store = Fixture.store(tmp.path, lockTimeout: 0.3)
        try await store.withLock {}
        // Held far longer than the timeout (and killed afterwards): on a loaded machine this task
        // may not run again for seconds, and the holder must still be there when it does.
        guard let holder = try holdLockFromAnotherProcess(store.lockFilePath, seconds: 120, in: tmp.path) else { return }
        defer { kill(holder, SIGKILL); ChildProcess.wait(holder) }
        await #expect(throws: TokenStoreError.lockFailed(path: store.lockFilePath, errno: ETIMEDOUT)) {
            try await store.withLock {}
        }
    }

    @Test func waitingHonoursCancellation() async throws {
        let tmp = TemporaryDirectory()
        let store = Fixture.store(tmp.path)
        try await store.withLock {}
        guard let holder = try holdLockFromAnotherProcess(store.lockFilePath, seconds: 120, in: tmp.path) else { return }
        defer { kill(holder, SIGKILL); ChildProcess.wait(holder) }
        let waiter = Task { try await store.withLock { "ran" } }
        try await Task.sleep(nanoseconds: 100_000_000)
        waiter.cancel()
        let start = ContinuousClock.now
        await #expect(throws: CancellationError.self) { _ = try await waiter.value }
        // Well before the holder (120 s) or the lock timeout (120 s) would end the wait; generous
        // because the test pool may be busy with the CPU-heavy suites.
        #expect(ContinuousClock.now - start < .seconds(30))
    }
}

extension FileLockTests {
    @Test func tooOpenLockFileIsTightenedButForeignOneRefused() async throws {
        let tmp = TemporaryDirectory()
        let store = Fixture.store(tmp.path)
        Fixture.write([], to: store.lockFilePath, mode: 0o644)
        try await store.withLock {}
        #expect(Fixture.mode(store.lockFilePath) == 0o600)
        guard geteuid() == 0 else {
            #expect(!Fixture.isCI, "CI must run this suite as root to test foreign ownership")
            return
        }
        chown(store.lockFilePath, 4242, 4242)
        await #expect(throws: TokenStoreError.wrongOwner(path: store.lockFilePath, owner: 4242, expected: 0)) {
            try await store.withLock {}
        }
    }
}
