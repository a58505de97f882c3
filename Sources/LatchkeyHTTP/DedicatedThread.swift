import Glibc

/// Runs blocking work (sockets, TLS) on a fresh pthread and resumes the caller when it ends, so a slow
/// server never pins a thread of Swift's small cooperative pool.
enum DedicatedThread {
    private final class Job {
        let work: () -> Void
        init(_ work: @escaping () -> Void) { self.work = work }
    }

    static func run<T: Sendable>(_ body: @escaping @Sendable () throws(HTTPError) -> T) async throws(HTTPError) -> T {
        let result: Result<T, HTTPError> = await withCheckedContinuation { continuation in
            let job = Job {
                do throws(HTTPError) {
                    continuation.resume(returning: .success(try body()))
                } catch {
                    continuation.resume(returning: .failure(error))
                }
            }
            let context = Unmanaged.passRetained(job).toOpaque()
            var thread = pthread_t()
            let rc = pthread_create(
                &thread, nil,
                { raw in
                    let job = Unmanaged<Job>.fromOpaque(raw!).takeRetainedValue()
                    job.work()
                    return nil
                }, context)
            if rc == 0 {
                pthread_detach(thread)
            } else {
                // No thread: run inline rather than fail (only under extreme resource pressure).
                Unmanaged<Job>.fromOpaque(context).takeRetainedValue().work()
            }
        }
        return try result.get()
    }
}
