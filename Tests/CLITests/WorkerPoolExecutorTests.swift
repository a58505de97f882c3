#if os(Linux)
    import CLatchkeyExecutor
    import Glibc
    import Testing
    @testable import latchkey

    /// The pool behind the CLI's default executor, driven through a task executor preference so the
    /// test process's own default executor stays as it is. `Task.sleep` inside such a task schedules
    /// on the preferred executor, the same path the CLI's sleeps take through the factory.
    @Suite struct WorkerPoolExecutorTests {
        let executor = WorkerPoolExecutor()

        @Test func tasksRunOnPoolWorkersAndManyChildrenFinish() async {
            let (onWorker, sum) = await Task(executorPreference: executor) {
                let onWorker = latchkey_pool_is_worker_thread()
                let sum = await withTaskGroup(of: Int.self) { group in
                    for i in 1...200 { group.addTask { latchkey_pool_is_worker_thread() ? i : -1_000_000 } }
                    return await group.reduce(0, +)
                }
                return (onWorker, sum)
            }.value
            #expect(onWorker)
            #expect(sum == 200 * 201 / 2, "a child ran elsewhere than on a pool worker")
            #expect(latchkey_pool_statistics().threadsStarted <= latchkey_pool_maximum_workers())
        }

        @Test func sleepIsADelayedPoolJobThatWaitsLongEnough() async throws {
            let before = latchkey_pool_statistics().delayedJobs
            let elapsed = try await Task(executorPreference: executor) {
                try await ContinuousClock().measure {
                    try await Task.sleep(nanoseconds: 120_000_000)
                    try await Task.sleep(for: .milliseconds(80))
                }
            }.value
            #expect(elapsed >= .milliseconds(200), "\(elapsed)")
            #expect(elapsed < .seconds(5), "\(elapsed)")
            #expect(latchkey_pool_statistics().delayedJobs >= before + 2)
        }

        @Test func shorterDelaysFireFirst() async {
            let order = await Task(executorPreference: executor) {
                await withTaskGroup(of: Int.self) { group in
                    for ms in [300, 100, 200] {
                        group.addTask {
                            try? await Task.sleep(for: .milliseconds(ms)); return ms
                        }
                    }
                    var order: [Int] = []
                    for await ms in group { order.append(ms) }
                    return order
                }
            }.value
            #expect(order == [100, 200, 300])
        }

        @Test func cancellingALongSleepEndsItAtOnce() async {
            // Timed inside the pool: the test's own task may wait long for a thread of the test
            // process's executor, which blocking process tests keep busy.
            let sleeper = Task(executorPreference: executor) { () -> (cancelled: Bool, at: ContinuousClock.Instant) in
                do {
                    try await Task.sleep(for: .seconds(600))
                    return (false, .now)
                } catch {
                    return (error is CancellationError, .now)
                }
            }
            usleep(50_000)
            let start = ContinuousClock.now
            sleeper.cancel()
            let outcome = await sleeper.value
            #expect(outcome.cancelled)
            #expect(outcome.at - start < .seconds(2), "\(outcome.at - start)")
        }

        @Test func durationsBecomeNanosecondsFromNow() {
            #expect(WorkerPoolExecutor.nanoseconds(.milliseconds(1500)) == 1_500_000_000)
            #expect(WorkerPoolExecutor.nanoseconds(.nanoseconds(7)) == 7)
            #expect(WorkerPoolExecutor.nanoseconds(.zero) == 0)
            #expect(WorkerPoolExecutor.nanoseconds(.seconds(-3)) == 0)
            #expect(WorkerPoolExecutor.nanoseconds(.seconds(Int64.max)) == UInt64.max)
        }

        @Test func workersBlockSIGINTAndSIGTERMButNotTheirOwnFaults() async {
            // libdispatch's worker mask: asynchronous signals blocked, synchronous ones delivered.
            let (blocked, delivered) = await Task(executorPreference: executor) {
                var mask = sigset_t()
                pthread_sigmask(SIG_BLOCK, nil, &mask)
                return (
                    [SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGCHLD].allSatisfy { sigismember(&mask, $0) == 1 },
                    [SIGSEGV, SIGBUS, SIGILL, SIGFPE, SIGPIPE].allSatisfy { sigismember(&mask, $0) == 0 }
                )
            }.value
            #expect(blocked)
            #expect(delivered)
        }
    }
#endif
