#if os(Linux) && !LATCHKEY_SWIFT_RUNTIME_6_0
    // Toolchain guard: see LatchkeyExecutorFactory.swift.
    #if !compiler(>=6.3) || compiler(>=6.4)
        #error(
            "WorkerPoolExecutor uses the ExperimentalCustomExecutors and ExperimentalScheduling SPI as of Swift 6.3; see LatchkeyExecutorFactory.swift"
        )
    #endif
    @_spi(ExperimentalCustomExecutors) @_spi(ExperimentalScheduling) import _Concurrency
    import CLatchkeyExecutor

    /// The CLI's default executor for every task, immediate or delayed (`Task.sleep`), instead of
    /// libdispatch's global queues. Their worker-pool monitor (libdispatch src/event/workqueue.c) wakes
    /// every second and, while a queue has pending work, opens /proc/<tid>/stat for each worker; in a
    /// root without /proc that open fails and libdispatch crashes the process ("workq: registered
    /// worker exited prematurely", SIGILL, no output) — 116 of 1000 `token --force-refresh` runs did.
    /// The jobs run on CLatchkeyExecutor's small pthread pool, with the generic executor, exactly as
    /// libdispatch's worker would run them.
    final class WorkerPoolExecutor: TaskExecutor, SchedulingExecutor, @unchecked Sendable {
        // Stateless: the pool lives in C, so any instance is as good as another.

        func enqueue(_ job: consuming ExecutorJob) {
            latchkey_pool_submit(Self.pointer(job), 0)
        }

        func enqueue<C: Clock>(_ job: consuming ExecutorJob, after delay: C.Duration, tolerance: C.Duration?, clock: C) {
            guard let duration = delay as? Duration else {
                return Self.platformFallback(job, after: delay, tolerance: tolerance, clock: clock)
            }
            latchkey_pool_submit(Self.pointer(job), Self.nanoseconds(duration))
        }

        func enqueue<C: Clock>(_ job: consuming ExecutorJob, at instant: C.Instant, tolerance: C.Duration?, clock: C) {
            enqueue(job, after: clock.now.duration(to: instant), tolerance: tolerance, clock: clock)
        }

        /// Nanoseconds from now, 0 for the past, saturating far in the future.
        static func nanoseconds(_ duration: Duration) -> UInt64 {
            let (seconds, attoseconds) = duration.components
            if seconds < 0 || (seconds == 0 && attoseconds <= 0) { return 0 }
            if seconds >= Int64(UInt64.max / 1_000_000_000) - 1 { return UInt64.max }
            return UInt64(seconds) * 1_000_000_000 + UInt64(max(attoseconds, 0) / 1_000_000_000)
        }

        private static func pointer(_ job: consuming ExecutorJob) -> UnsafeMutableRawPointer {
            unsafeBitCast(UnownedJob(job), to: UnsafeMutableRawPointer.self)
        }

        /// A clock whose durations are not `Duration` (latchkey has none): the platform's own timer.
        private static func platformFallback<C: Clock>(
            _ job: consuming ExecutorJob, after delay: C.Duration,
            tolerance: C.Duration?, clock: C
        ) {
            let platform = PlatformExecutorFactory.defaultExecutor as! any SchedulingExecutor
            platform.enqueue(job, after: delay, tolerance: tolerance, clock: clock)
        }
    }
#endif
