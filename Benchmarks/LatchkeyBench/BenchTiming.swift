import Glibc

/// Timing and formatting shared by every benchmark in this executable.
enum BenchTiming {
    /// Monotonic time in seconds.
    static func now() -> Double {
        var ts = timespec()
        clock_gettime(CLOCK_MONOTONIC, &ts)
        return Double(ts.tv_sec) + Double(ts.tv_nsec) / 1e9
    }

    /// Operations per second of `body` (one operation per call), run for about `seconds`.
    /// `body` returns a Bool that is checked so the optimiser cannot drop the work and a broken
    /// operation cannot produce a flattering figure.
    static func rate(seconds: Double, _ body: () -> Bool) -> Double {
        // Warm-up: caches, lazy tables (e.g. the ECDSA comb table).
        for _ in 0..<3 { precondition(body(), "benchmark operation failed") }
        var operations = 0
        let start = now()
        var elapsed = 0.0
        repeat {
            for _ in 0..<8 { precondition(body(), "benchmark operation failed") }
            operations += 8
            elapsed = now() - start
        } while elapsed < seconds
        return Double(operations) / elapsed
    }

    /// Measures `a` and `b` in alternating rounds and returns the best rate of each.
    static func compare(rounds: Int, seconds: Double, _ a: () -> Bool, _ b: () -> Bool) -> (Double, Double) {
        var bestA = 0.0, bestB = 0.0
        for _ in 0..<rounds {
            bestA = max(bestA, rate(seconds: seconds, a))
            bestB = max(bestB, rate(seconds: seconds, b))
        }
        return (bestA, bestB)
    }

    /// `value` with `decimals` digits after the point (FoundationEssentials has no String(format:)).
    static func fixed(_ value: Double, _ decimals: Int) -> String {
        var scale = 1.0
        for _ in 0..<decimals { scale *= 10 }
        let scaled = (value * scale).rounded()
        let whole = Int(scaled / scale)
        let fraction = Int(abs(scaled - Double(whole) * scale))
        guard decimals > 0 else { return String(whole) }
        let digits = String(fraction)
        return "\(whole)." + String(repeating: "0", count: decimals - digits.count) + digits
    }

    /// Right-aligns `text` in `width` columns.
    static func pad(_ text: String, _ width: Int) -> String {
        text.count >= width ? text : String(repeating: " ", count: width - text.count) + text
    }
}
