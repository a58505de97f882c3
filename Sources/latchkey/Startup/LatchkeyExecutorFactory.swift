#if os(Linux) && !LATCHKEY_SWIFT_RUNTIME_6_0
    // The executor SPI (SE-0471, `ExperimentalCustomExecutors`) is unstable between releases. It is
    // built and tested with Swift 6.3.1 (docs/architecture.md, "The custom executor"); another
    // toolchain stops here with this message rather than failing in the middle of the SPI's types.
    #if !compiler(>=6.3) || compiler(>=6.4)
        #error(
            "LatchkeyExecutorFactory uses the ExperimentalCustomExecutors SPI as of Swift 6.3; check SE-0471's ExecutorFactory, TaskExecutor and SchedulingExecutor on this toolchain, then widen the compiler range in LatchkeyExecutorFactory.swift and WorkerPoolExecutor.swift"
        )
    #endif
    @_spi(ExperimentalCustomExecutors) import _Concurrency

    /// Makes `WorkerPoolExecutor` the default executor (SE-0471's executor factory). The runtime reads
    /// the factory once; `install` is what a `DefaultExecutorFactory` typealias on a `@main` type would
    /// make the compiler emit at the start of `main`. Hooks of the older runtime interface
    /// (`swift_task_enqueueGlobal_hook` and its delayed siblings) would not do: since Swift 6.2
    /// `Task.sleep` schedules on the current executor directly, which without a factory is libdispatch.
    enum LatchkeyExecutorFactory: ExecutorFactory {
        /// The main actor is never used by the CLI; keep the platform's (libdispatch's main queue,
        /// which has no worker pool behind it).
        static var mainExecutor: any MainExecutor { PlatformExecutorFactory.mainExecutor }
        static var defaultExecutor: any TaskExecutor { WorkerPoolExecutor() }

        /// Call before the first task. Starts no thread: the pool's first worker comes with the first job.
        static func install() {
            _createExecutors(factory: LatchkeyExecutorFactory.self)
        }
    }
#endif
#if os(Linux) && LATCHKEY_SWIFT_RUNTIME_6_0
    // The aarch64 build (device/build-static.sh --arch aarch64) compiles against Debian 13's Swift 6.0.3
    // runtime, whose _Concurrency has no ExecutorFactory, TaskExecutor scheduling or
    // _createExecutors (SE-0471 is 6.3 SPI): the code above does not compile there. 6.0's runtime
    // has the older global-executor hooks instead, and on 6.0 `Task.sleep` still goes through them
    // (swift_task_enqueueGlobalWithDelay/WithDeadline; the 6.2 change named above is not in that
    // runtime), so the hooks send every job to the same pool. docs/deploy.md "CPUs".
    import CLatchkeyExecutor

    enum LatchkeyExecutorFactory {
        /// Call before the first task. Starts no thread: the pool's first worker comes with the first job.
        static func install() {
            latchkey_pool_install_runtime60_hooks()
        }
    }
#endif
