import Glibc

// Kept minimal: the `token` hot path must start in about a millisecond (docs/performance.md).
let status = await LatchkeyCLI.run(arguments: Array(CommandLine.arguments.dropFirst()), environment: .process)
exit(status)
