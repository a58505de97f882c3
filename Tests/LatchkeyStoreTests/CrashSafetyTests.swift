import FoundationEssentials
import Glibc
import Latchkey
import LatchkeyCrypto
import Testing

/// SIGKILL at random moments while another process rewrites the token file: afterwards the file
/// always opens and holds a whole session, the last one seen or a newer one, never a mix.
///
/// The writer is this test runner itself, re-invoked with `LATCHKEY_STORE_CRASH_WRITER` set so
/// that `writerModeOrSequentialWrites` turns into an endless save loop (fork is unsafe in Swift).
@Suite struct CrashSafetyTests {
    static let writerVariable = "LATCHKEY_STORE_CRASH_WRITER"
    static let startVariable = "LATCHKEY_STORE_CRASH_START"
    static let kills = 500

    /// In a writer child: save generations START, START+1, … until killed (20 s at most), telling the parent through
    /// fd 3 once the first one is on disk. In a normal run: 50 sequential saves, each read back.
    @Test func writerModeOrSequentialWrites() throws {
        if let directory = getenv(Self.writerVariable).map({ String(cString: $0) }) {
            let start = getenv(Self.startVariable).flatMap { Int(String(cString: $0)) } ?? 1
            let store = Fixture.store(directory)
            var generation = start
            // A writer is always killed within milliseconds; if its parent failed and forgot it,
            // it must not write forever.
            let deadline = ContinuousClock.now + .seconds(20)
            while ContinuousClock.now < deadline, getppid() != 1 {
                try store.save(Fixture.session(generation: generation))
                if generation == start { var byte: UInt8 = 1; _ = Glibc.write(3, &byte, 1); close(3) }
                generation += 1
            }
            Issue.record("crash writer ran for 20 s without being killed")
            return
        }
        let tmp = TemporaryDirectory()
        let store = Fixture.store(tmp.path)
        for generation in 1...50 {
            try store.save(Fixture.session(generation: generation))
            #expect(try Fixture.store(tmp.path).load() == Fixture.session(generation: generation))
        }
    }

    /// Four lanes (own folders) run at once so process start-up overlaps with the other lanes' I/O.
    @Test func sigkillDuringRewritesNeverLosesTheFile() async throws {
        let started = ContinuousClock.now
        let lanes = 4
        let results = try await withThrowingTaskGroup(of: (interrupted: Int, last: Int).self) { group in
            for lane in 0..<lanes {
                group.addTask { try await self.killLoop(rounds: Self.kills / lanes, label: "crash\(lane)") }
            }
            return try await group.reduce(into: []) { $0.append($1) }
        }
        let interrupted = results.map(\.interrupted).reduce(0, +)
        print(
            "crash test: \(Self.kills) SIGKILLs in \(lanes) lanes, \(interrupted) mid-write (temporary file left), "
                + "last generations \(results.map(\.last)), \(ContinuousClock.now - started)")
        // The test only means something if kills really landed inside writes.
        #expect(interrupted > 0)
    }

    /// One lane: spawn a writer, wait for its first save, kill it at a random moment, check the file.
    func killLoop(rounds: Int, label: String) async throws -> (interrupted: Int, last: Int) {
        let tmp = TemporaryDirectory(label)
        let store = Fixture.store(tmp.path)
        try store.save(Fixture.session(generation: 1))
        let executable = ChildProcess.currentExecutable()
        let random = try SecureRandom()
        var lastSeen = 1
        var interruptedWrites = 0

        for round in 1...rounds {
            var fds: [Int32] = [0, 0]
            try #require(pipe(&fds) == 0)
            // Close-on-exec so the other lane's writers do not inherit it; the spawn's dup2 to fd 3
            // clears the flag for our own writer.
            for fd in fds { _ = fcntl(fd, F_SETFD, FD_CLOEXEC) }
            _ = fcntl(fds[0], F_SETFL, O_NONBLOCK)
            let temporariesBefore = try temporaryCount(tmp.path)
            let child = try #require(
                ChildProcess.spawn(
                    executable, ["--testing-library", "swift-testing", "--filter", "CrashSafetyTests/writerModeOrSequentialWrites"],
                    extraEnvironment: [Self.writerVariable: tmp.path, Self.startVariable: String(lastSeen + 1)],
                    pipeWriteEnd: fds[1]))
            close(fds[1])
            var reaped = false
            defer { if !reaped { kill(child, SIGKILL); ChildProcess.wait(child) } }
            // Wait (without blocking a pool thread) until the first save landed or the child died.
            var byte: UInt8 = 0
            var got = -1
            while true {
                got = Glibc.read(fds[0], &byte, 1)
                if got >= 0 || (errno != EAGAIN && errno != EINTR) { break }
                var status: Int32 = 0
                if waitpid(child, &status, WNOHANG) == child { reaped = true; got = -1; break }
                try await Task.sleep(nanoseconds: 500_000)
            }
            close(fds[0])
            try #require(got == 1, "\(label) round \(round): writer died before its first save")
            // A random moment within the next few writes.
            let delay = random.bytes(2).reduce(0) { $0 << 8 | Int($1) } % 4000
            usleep(useconds_t(delay))
            kill(child, SIGKILL)
            let status = ChildProcess.wait(child)
            reaped = true
            #expect(status & 0x7f == SIGKILL, "\(label) round \(round): the writer was not killed by SIGKILL")

            let session = try #require(try Fixture.store(tmp.path).load(), "\(label) round \(round): token file gone")
            let generation = try #require(Fixture.generation(of: session), "\(label) round \(round): torn session")
            #expect(generation >= lastSeen + 1, "\(label) round \(round): went back from \(lastSeen) to \(generation)")
            lastSeen = generation
            if try temporaryCount(tmp.path) > temporariesBefore { interruptedWrites += 1 }
        }
        #expect(Fixture.mode(store.tokenFilePath) == 0o600)
        return (interruptedWrites, lastSeen)
    }

    func temporaryCount(_ directory: String) throws -> Int {
        try FileManager.default.contentsOfDirectory(atPath: directory).filter { $0.hasPrefix(".default.tokens.tmp-") }.count
    }
}
