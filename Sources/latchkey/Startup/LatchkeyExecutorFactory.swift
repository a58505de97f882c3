#if os(Linux)
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
