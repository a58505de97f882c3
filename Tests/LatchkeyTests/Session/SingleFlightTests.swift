import Synchronization
import Testing

@testable import Latchkey

/// The rules of `SingleFlight` on their own: shared work, prompt cancellation of a waiter, the work
/// cancelled only when its last waiter has gone.
@Suite struct SingleFlightTests {
    /// Work that counts its starts and waits until `open` (or its cancellation, after which it
    /// takes 50 ms to clean up, as a save would, before it counts the cancellation and ends).
    final class Gate: @unchecked Sendable {
        let starts = Mutex(0)
        let cancellations = Mutex(0)
        let open = Mutex(false)

        func work(_ value: Int) -> @Sendable () async throws -> Int {
            { [self] in
                starts.withLock { $0 += 1 }
                do {
                    while !open.withLock({ $0 }) { try await Task.sleep(nanoseconds: 2_000_000) }
                } catch {
                    let cleanedUp = ContinuousClock.now + .milliseconds(50)
                    while ContinuousClock.now < cleanedUp {}
                    cancellations.withLock { $0 += 1 }
                    throw error
                }
                return value
            }
        }

        func waitForStarts(_ n: Int) async throws {
            for _ in 0..<500 where starts.withLock({ $0 }) < n { try await Task.sleep(nanoseconds: 2_000_000) }
            try #require(starts.withLock { $0 } >= n)
        }
    }

    /// Caller a starts work 1; caller b, asking for work 2 while it runs, joins work 1.
    func twoWaiters(_ flight: SingleFlight<Int>, _ gate: Gate) async throws -> (Task<Int, any Error>, Task<Int, any Error>) {
        let a = Task { try await flight.run(gate.work(1)) }
        try await gate.waitForStarts(1)
        let b = Task { try await flight.run(gate.work(2)) }
        try await Task.sleep(nanoseconds: 20_000_000)
        return (a, b)
    }

    @Test func concurrentCallersShareOneRun() async throws {
        let (flight, gate) = (SingleFlight<Int>(), Gate())
        let (a, b) = try await twoWaiters(flight, gate)
        gate.open.withLock { $0 = true }
        #expect(try await a.value == 1)
        #expect(try await b.value == 1)  // joined the first run, never started its own
        #expect(gate.starts.withLock { $0 } == 1)
    }

    @Test func anErrorReachesEveryWaiter() async throws {
        struct Refused: Error {}
        let flight = SingleFlight<Int>()
        let started = Mutex(false)
        let work: @Sendable () async throws -> Int = {
            started.withLock { $0 = true }
            try await Task.sleep(nanoseconds: 50_000_000)
            throw Refused()
        }
        let a = Task { try await flight.run(work) }
        for _ in 0..<500 where !started.withLock({ $0 }) { try await Task.sleep(nanoseconds: 1_000_000) }
        let b = Task { try await flight.run(work) }
        for task in [a, b] {
            guard case .failure(let e) = await task.result else { Issue.record("succeeded"); continue }
            #expect(e is Refused)
        }
    }

    @Test func anAlreadyCancelledCallerStartsNothing() async throws {
        let flight = SingleFlight<Int>()
        let gate = Gate()
        let task = Task {
            withUnsafeCurrentTask { $0?.cancel() }
            return try await flight.run(gate.work(1))
        }
        guard case .failure(let e) = await task.result else { Issue.record("a cancelled caller got a value"); return }
        #expect(e is CancellationError)
        try await Task.sleep(nanoseconds: 20_000_000)
        #expect(gate.starts.withLock { $0 } == 0)
    }

    @Test func theLastWaiterLeavingCancelsTheWorkWaitsForItAndTheNextCallerStartsAfresh() async throws {
        let (flight, gate) = (SingleFlight<Int>(), Gate())
        let (a, b) = try await twoWaiters(flight, gate)
        a.cancel()
        guard case .failure(let ea) = await a.result else { Issue.record("a cancelled waiter got a value"); return }
        #expect(ea is CancellationError)
        #expect(gate.cancellations.withLock { $0 } == 0, "one waiter left, yet the work was cancelled")
        b.cancel()
        guard case .failure(let eb) = await b.result else { Issue.record("a cancelled waiter got a value"); return }
        #expect(eb is CancellationError)
        // The last waiter is back only once the work has unwound: nothing runs on after it.
        #expect(gate.cancellations.withLock { $0 } == 1, "the last waiter returned before the work had unwound")
        // The abandoned run is forgotten: a new caller gets work of its own, not the cancelled run's error.
        gate.open.withLock { $0 = true }
        #expect(try await flight.run(gate.work(3)) == 3)
        #expect(gate.starts.withLock { $0 } == 2)
    }
}
