import Glibc

/// Where the tool writes: data to stdout, people-facing text to stderr. Writes go straight to the
/// file descriptors (no stdio buffering) so JSON Lines events leave at once and nothing is lost on
/// `exit`.
struct Console: Sendable {
    /// stderr is a terminal: QR code, countdown and colours are allowed.
    let stderrIsTTY: Bool
    /// stdin is a terminal: prompts are allowed.
    let stdinIsTTY: Bool
    /// Colours and bold allowed (stderr is a TTY, `NO_COLOR` unset, `TERM` not `dumb`).
    let colour: Bool
    /// `--quiet`: only errors reach stderr.
    let quiet: Bool
    /// Where data goes: stdout, or stderr while `fetch --sign-in` signs in (stdout is the response's).
    private(set) var dataDescriptor: Int32 = 1

    /// Inspects the real descriptors and the environment.
    init(environment: ProcessEnvironment, quiet: Bool) {
        stderrIsTTY = isatty(2) == 1
        stdinIsTTY = isatty(0) == 1
        // no-color.org: NO_COLOR set to any non-empty value turns colours off.
        colour = stderrIsTTY && environment["NO_COLOR"] == nil && environment["TERM"] != "dumb"
        self.quiet = quiet
    }

    /// Writes data to stdout.
    func out(_ text: String) { Console.write(dataDescriptor, text) }

    /// Writes a line of data to stdout.
    func outLine(_ text: String) { Console.write(dataDescriptor, text + "\n") }

    /// The same console with data (JSON events) written to stderr, so stdout carries only what
    /// another command writes there.
    var dataOnStderr: Console {
        var copy = self
        copy.dataDescriptor = 2
        return copy
    }

    /// Writes people-facing text to stderr, unless `--quiet`.
    func info(_ text: String) { if !quiet { Console.write(2, text) } }

    /// Writes a warning line to stderr, unless `--quiet` (warnings are not errors).
    /// Warnings quote servers (revocation errors), so the line is sanitised.
    func warn(_ text: String) { if !quiet { Console.write(2, "latchkey: warning: " + TerminalText.singleLine(text) + "\n") } }

    /// Writes an error line to stderr (always).
    func error(_ text: String) { Console.write(2, text) }

    /// `text` in bold when colours are allowed.
    func bold(_ text: String) -> String { colour ? "\u{1B}[1m" + text + "\u{1B}[0m" : text }

    /// `text` dimmed when colours are allowed.
    func dim(_ text: String) -> String { colour ? "\u{1B}[2m" + text + "\u{1B}[0m" : text }

    /// Writes all of `text` to `fd`, retrying on short writes and EINTR.
    static func write(_ fd: Int32, _ text: String) {
        var bytes = Array(text.utf8)
        var offset = 0
        while offset < bytes.count {
            let n = bytes.withUnsafeMutableBytes { buf in
                Glibc.write(fd, buf.baseAddress! + offset, buf.count - offset)
            }
            if n > 0 { offset += n } else if n < 0 && errno == EINTR { continue } else { return }
        }
    }
}
