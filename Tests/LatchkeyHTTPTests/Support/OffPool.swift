import Glibc

/// Runs blocking test setup (spawning, waiting for ports, openssl) on its own pthread. Swift Testing runs
/// tests in parallel on the small cooperative pool (2 threads here); blocking it would stall every other
/// test and skew the timing assertions.
func offPool<T: Sendable>(_ body: @escaping @Sendable () throws -> T) async throws -> T {
    let result: Result<T, any Error> = await withCheckedContinuation { continuation in
        let job = OffPoolJob { continuation.resume(returning: Result { try body() }) }
        var thread = pthread_t()
        let raw = Unmanaged.passRetained(job).toOpaque()
        let rc = pthread_create(
            &thread, nil,
            { p in
                Unmanaged<OffPoolJob>.fromOpaque(p!).takeRetainedValue().run()
                return nil
            }, raw)
        if rc == 0 { pthread_detach(thread) } else { Unmanaged<OffPoolJob>.fromOpaque(raw).takeRetainedValue().run() }
    }
    return try result.get()
}

private final class OffPoolJob: @unchecked Sendable {
    let run: () -> Void
    init(_ run: @escaping () -> Void) { self.run = run }
}
