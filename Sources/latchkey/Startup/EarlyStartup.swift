import Glibc

// A fully static Swift binary reads /proc twice before `main`: the runtime finds itself through
// /proc/self/exe (and aborts without it unless SWIFT_ROOT is set), and CommandLine.arguments comes
// from /proc/self/cmdline (empty without it). Appliances may run us in a root with no /proc, so an
// ELF constructor that runs before the runtime's own records argv and sets SWIFT_ROOT. It touches
// only C state: no Swift allocation happens this early.
// It also blocks SIGINT and SIGTERM at once, so a signal that arrives while the runtime starts is
// kept pending for the command's sigwait (exit 130/143 after a clean unwind) instead of killing
// the process by its default action (TerminationSignals).

/// argc as the kernel passed it to the process (0 until the constructor ran).
nonisolated(unsafe) var startupArgumentCount: Int32 = 0
/// argv as the kernel passed it to the process.
nonisolated(unsafe) var startupArgumentVector: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>? = nil

@section(".init_array.00101") @used
let latchkeyEarlyStartup:
    @convention(c) (
        Int32, UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?,
        UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?
    ) -> Void = { argc, argv, _ in
        startupArgumentCount = argc
        startupArgumentVector = argv
        var termination = sigset_t()
        sigemptyset(&termination)
        sigaddset(&termination, SIGINT)
        sigaddset(&termination, SIGTERM)
        sigprocmask(SIG_BLOCK, &termination, nil)
        if getenv("SWIFT_ROOT") == nil, access("/proc/self/exe", F_OK) != 0 {
            setenv("SWIFT_ROOT", "/", 0)
        }
    }

/// The process arguments, also when /proc is missing.
enum StartupArguments {
    /// argv as the constructor captured it (the same strings the runtime reads for
    /// `CommandLine.arguments`, which costs a cached `token` ~25 K instructions more to build), else
    /// `CommandLine.arguments`.
    static var all: [String] {
        guard let argv = startupArgumentVector else { return CommandLine.arguments }
        return strings(argv, count: Int(startupArgumentCount))
    }

    /// The first `count` entries of a C argument vector, stopping at a NULL one.
    static func strings(_ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>, count: Int) -> [String] {
        var out: [String] = []
        out.reserveCapacity(count)
        var index = 0
        while index < count, let argument = argv[index] {
            out.append(String(cString: argument))
            index += 1
        }
        return out
    }
}
