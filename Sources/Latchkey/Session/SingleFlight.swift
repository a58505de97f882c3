import Synchronization

/// Work shared by every caller who asks for it while it runs (Go's `singleflight`), with the
/// callers' cancellation reaching it (`withTaskCancellationHandler`). The rule, chosen so that one
/// impatient caller never spoils the result for others who still want it, and so that no work
/// outlives its last caller:
/// - a cancelled caller while others still wait stops waiting at once (`CancellationError`), and
///   the work goes on for the others;
/// - when the last waiter is cancelled, the work is cancelled, and that waiter gets what the work
///   ends with (normally its cancellation, or its result when it had already finished) only once
///   it has unwound. A program that exits on the cancellation thus never cuts a save short, the
///   way structured concurrency waits for a cancelled child;
/// - cancelled work is forgotten at once, so the next caller starts afresh instead of joining
///   work that is unwinding;
/// - work that runs to its end hands its result, or its error, to every caller still waiting.
///
/// The work runs in its own task (it outlives any one caller), which inherits the first caller's
/// priority and task-local values.
final class SingleFlight<Value: Sendable>: Sendable {
    private typealias Waiter = CheckedContinuation<Value, any Error>

    private struct Flight {
        let id: UInt64
        var task: Task<Void, Never>?
        var waiters: [UInt64: Waiter] = [:]
    }

    private struct State {
        var flight: Flight?
        var nextID: UInt64 = 0
        /// Callers between taking an id and joining; a cancellation that arrives then (the handler
        /// runs first when the caller is already cancelled) moves the id to `cancelledEarly`.
        var arriving: Set<UInt64> = []
        var cancelledEarly: Set<UInt64> = []
        /// The last waiter of each cancelled flight, told when that flight has unwound.
        var abandoned: [UInt64: Waiter] = [:]
    }

    private let state = Mutex(State())

    init() {}

    /// The result of the work in flight, or of `work` started now when none is.
    func run(_ work: @escaping @Sendable () async throws -> Value) async throws -> Value {
        let caller = state.withLock { s -> UInt64 in
            s.nextID += 1
            s.arriving.insert(s.nextID)
            return s.nextID
        }
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (waiter: Waiter) in
                join(caller, waiter, work)
            }
        } onCancel: {
            leave(caller)
        }
    }

    private func join(_ caller: UInt64, _ waiter: Waiter, _ work: @escaping @Sendable () async throws -> Value) {
        let cancelled = state.withLock { s -> Bool in
            s.arriving.remove(caller)
            if s.cancelledEarly.remove(caller) != nil { return true }
            if s.flight == nil {
                s.nextID += 1
                let id = s.nextID
                var flight = Flight(id: id)
                flight.task = Task {
                    let result: Result<Value, any Error>
                    do { result = .success(try await work()) } catch { result = .failure(error) }
                    self.finish(id, result)
                }
                s.flight = flight
            }
            s.flight?.waiters[caller] = waiter
            return false
        }
        if cancelled { waiter.resume(throwing: CancellationError()) }
    }

    /// A caller's cancellation: it stops waiting, unless it is the last one, whose cancellation
    /// cancels the work and who waits for it to unwind.
    private func leave(_ caller: UInt64) {
        let (released, abandoned) = state.withLock { s -> (Waiter?, Task<Void, Never>?) in
            if s.arriving.remove(caller) != nil {
                s.cancelledEarly.insert(caller)
                return (nil, nil)
            }
            // Absent: the caller already has its result.
            guard var flight = s.flight, let waiter = flight.waiters.removeValue(forKey: caller) else { return (nil, nil) }
            if flight.waiters.isEmpty {
                s.flight = nil
                s.abandoned[flight.id] = waiter
                return (nil, flight.task)
            }
            s.flight = flight
            return (waiter, nil)
        }
        released?.resume(throwing: CancellationError())
        abandoned?.cancel()
    }

    /// The work's end: every caller still waiting gets the result, or, for cancelled work (a newer
    /// flight may run by now), the last waiter that cancelled it.
    private func finish(_ id: UInt64, _ result: Result<Value, any Error>) {
        let waiters = state.withLock { s -> [Waiter] in
            if let waiter = s.abandoned.removeValue(forKey: id) { return [waiter] }
            guard let flight = s.flight, flight.id == id else { return [] }
            s.flight = nil
            return Array(flight.waiters.values)
        }
        for waiter in waiters { waiter.resume(with: result) }
    }
}
