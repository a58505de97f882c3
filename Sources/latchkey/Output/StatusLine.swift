import LatchkeyHTTP
import Synchronization

/// The one line at the bottom of a terminal that is redrawn in place (`\r` + erase to end of
/// line) to show a countdown while polling. Only used when stderr is a terminal; other output
/// clears it first so lines never mix.
final class StatusLine: Sendable {
    private struct State {
        var deadline: Timestamp?
        var note = ""
        var shown = false
    }
    private let state = Mutex(State())
    private let console: Console

    /// A status line on `console`'s stderr.
    init(console: Console) { self.console = console }

    /// Sets the deadline the countdown runs to.
    func setDeadline(_ deadline: Timestamp) { state.withLock { $0.deadline = deadline } }

    /// Sets the short note after the countdown (e.g. "polling every 5 s").
    func setNote(_ note: String) { state.withLock { $0.note = note } }

    /// Redraws the line.
    func draw() {
        let text: String? = state.withLock { s -> String? in
            guard let deadline = s.deadline else { return nil }
            s.shown = true
            let left = deadline.timeIntervalSince(Timestamp.now())
            return "\r\u{1B}[K"
                + console.dim(
                    "Waiting for approval… \(DurationText.clock(left)) left"
                        + (s.note.isEmpty ? "" : " · " + s.note))
        }
        if let text { console.info(text) }
    }

    /// Erases the line if it is shown (before other output, and at the end).
    func clear() {
        let shown = state.withLock { s -> Bool in
            defer { s.shown = false }
            return s.shown
        }
        if shown { console.info("\r\u{1B}[K") }
    }

    /// Redraws once a second until the returned task is cancelled.
    func startTicking() -> Task<Void, Never> {
        Task { [self] in
            while !Task.isCancelled {
                draw()
                try? await Task.sleep(nanoseconds: 1_000_000_000)
            }
        }
    }
}
