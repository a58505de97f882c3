import Glibc

// Block SIGINT/SIGTERM before any other thread exists; commands that wait take them with
// sigwait (TerminationSignals) and exit 130/143 after a clean unwind.
TerminationSignals.blockInCurrentThread()
// Kept minimal: the `token` hot path must start in about a millisecond (docs/performance.md).
let status = await LatchkeyCLI.run(arguments: Array(CommandLine.arguments.dropFirst()), environment: .process)
exit(status)
