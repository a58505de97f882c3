import Synchronization

/// Set from `withTaskCancellationHandler`, polled by blocking I/O on its own thread between short waits.
final class CancellationFlag: Sendable {
    private let flag = Atomic<Bool>(false)

    /// Requests cancellation.
    func cancel() { flag.store(true, ordering: .releasing) }

    /// Whether cancellation was requested.
    var isCancelled: Bool { flag.load(ordering: .acquiring) }
}
