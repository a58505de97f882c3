import Glibc

/// Shared knobs: how long one measurement runs and how many interleaved rounds are taken.
struct BenchOptions {
    /// Seconds per timed measurement.
    var seconds: Double = 1.0
    /// Rounds per comparison; the best round of each side is reported, which filters out
    /// interference from other processes on a shared machine.
    var rounds: Int = 5

    static func parse(_ arguments: [String]) -> BenchOptions {
        var options = BenchOptions()
        var index = 0
        while index < arguments.count {
            let flag = arguments[index]
            let value = index + 1 < arguments.count ? arguments[index + 1] : ""
            switch flag {
            case "--seconds":
                guard let s = Double(value), s > 0 else { fail("--seconds needs a positive number") }
                options.seconds = s
            case "--rounds":
                guard let r = Int(value), r > 0 else { fail("--rounds needs a positive integer") }
                options.rounds = r
            default:
                fail("unknown option \(flag)")
            }
            index += 2
        }
        return options
    }

    /// Writes one line to standard error (fd 2; the C `stderr` global is not concurrency-safe in Swift 6).
    static func printError(_ line: String) {
        let bytes = Array((line + "\n").utf8)
        _ = bytes.withUnsafeBytes { write(2, $0.baseAddress, $0.count) }
    }

    private static func fail(_ message: String) -> Never {
        printError("latchkey-bench: \(message)")
        exit(2)
    }
}
