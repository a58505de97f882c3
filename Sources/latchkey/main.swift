import Glibc

// Block SIGINT/SIGTERM before any other thread exists; commands that wait take them with
// sigwait (TerminationSignals) and exit 130/143 after a clean unwind.
TerminationSignals.blockInCurrentThread()

#if os(Linux)
    // Before any task: tasks run on latchkey's own threads, never on libdispatch's worker pools, whose
    // monitor needs /proc (WorkerPoolExecutor).
    LatchkeyExecutorFactory.install()
#endif

// Not `async` main: see CompletionLatch. The `token` hot path finishes on this thread without
// starting the concurrency runtime at all.
switch LatchkeyCLI.prepare(arguments: Array(StartupArguments.all.dropFirst()), environment: .process) {
case .exit(let code):
    exit(code)
case .run(let context):
    if let code = LatchkeyCLI.runWithoutConcurrency(context) { exit(code) }
    let latch = CompletionLatch()
    Task.detached { latch.release(await LatchkeyCLI.run(context)) }
    exit(latch.wait())
}
