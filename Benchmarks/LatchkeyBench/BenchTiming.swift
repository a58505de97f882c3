import Glibc

/// Timing and formatting shared by every benchmark in this executable.
enum BenchTiming {
    /// Monotonic time in seconds.
    static func now() -> Double {
        var ts = timespec()
        clock_gettime(CLOCK_MONOTONIC, &ts)
        return Double(ts.tv_sec) + Double(ts.tv_nsec) / 1e9
    }

    /// CPU time consumed by the calling thread, in seconds. Rates are measured with this clock:
    /// on a shared machine (2 cores, several builds running) wall-clock rates swing by 2×, while
    /// thread CPU time only counts the time this benchmark actually ran.
    static func threadCPUNow() -> Double {
        var ts = timespec()
        clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts)
        return Double(ts.tv_sec) + Double(ts.tv_nsec) / 1e9
    }

    /// Operations per CPU-second of `body` (one operation per call), run for about `seconds`
    /// of thread CPU time. `body` returns a Bool that is checked, so the optimiser cannot drop
    /// the work and a broken operation cannot produce a flattering figure.
    static func rate(seconds: Double, _ body: () -> Bool) -> Double {
        // Warm-up: caches, lazy tables (e.g. the ECDSA comb table).
        for _ in 0..<3 { precondition(body(), "benchmark operation failed") }
        var operations = 0
        var batch = 1
        let start = threadCPUNow()
        var elapsed = 0.0
        repeat {
            let batchStart = threadCPUNow()
            for _ in 0..<batch { precondition(body(), "benchmark operation failed") }
            operations += batch
            let now = threadCPUNow()
            // Grow batches until each is ≥ 2 ms, so reading the clock (a system call) costs < 0.1%.
            if now - batchStart < 0.002 { batch *= 2 }
            elapsed = now - start
        } while elapsed < seconds
        return Double(operations) / elapsed
    }

    /// Measures `a` and `b` in alternating rounds and returns the best rate of each.
    static func compare(rounds: Int, seconds: Double, _ a: () -> Bool, _ b: () -> Bool) -> (Double, Double) {
        let result = comparePaired(rounds: rounds, seconds: seconds, a, b)
        return (result.bestA, result.bestB)
    }

    /// Best rates of `a` and `b` over alternating rounds, plus the median of the per-round
    /// ratios a/b: each round's pair ran back to back under the same machine load, so the
    /// median paired ratio is the steadier overhead estimate on a busy machine.
    static func comparePaired(rounds: Int, seconds: Double, _ a: () -> Bool, _ b: () -> Bool)
        -> (bestA: Double, bestB: Double, medianRatio: Double)
    {
        var bestA = 0.0, bestB = 0.0
        var ratios = [Double]()
        for round in 0..<rounds {
            // Alternate which side goes first, so neither always runs on a warmer cache.
            let (ra, rb): (Double, Double)
            if round % 2 == 0 {
                let x = rate(seconds: seconds, a); ra = x; rb = rate(seconds: seconds, b)
            } else {
                let y = rate(seconds: seconds, b); rb = y; ra = rate(seconds: seconds, a)
            }
            bestA = max(bestA, ra)
            bestB = max(bestB, rb)
            ratios.append(ra / rb)
        }
        ratios.sort()
        let mid = ratios.count / 2
        let median = ratios.count % 2 == 1 ? ratios[mid] : (ratios[mid - 1] + ratios[mid]) / 2
        return (bestA, bestB, median)
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
