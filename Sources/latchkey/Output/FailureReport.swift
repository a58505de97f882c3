/// Turns any error into what the user sees — `latchkey: <what failed>` and a hint line on
/// stderr — and the exit code of the contract (docs/cli.md, "Exit codes").
struct FailureReport: Sendable {
    /// The exit code.
    let exitCode: Int32
    /// A stable short name, for JSON error events.
    let code: String
    /// One line saying what failed.
    let message: String
    /// What to do next, or nil.
    let hint: String?

    /// Classifies `error`.
    init(_ error: any Error) {
        switch error {
        case let usage as UsageError:
            self.init(exitCode: 2, code: "usage", message: usage.message, hint: usage.hint)
        default:
            self.init(exitCode: 1, code: "internal_error", message: "unexpected error: \(error)",
                      hint: "this is a bug; please report it with the command you ran")
        }
    }

    /// Makes a report from its parts.
    init(exitCode: Int32, code: String, message: String, hint: String?) {
        self.exitCode = exitCode
        self.code = code
        self.message = message
        self.hint = hint
    }

    /// Writes the two lines to stderr and returns the exit code. Errors show even with `--quiet`.
    @discardableResult
    func emit(console: Console?) -> Int32 {
        var text = "latchkey: " + message.singleLine + "\n"
        if let hint { text += "hint: " + hint.singleLine + "\n" }
        Console.write(2, text)
        return exitCode
    }
}

extension String {
    /// The text with line breaks turned into spaces, so an error stays on one line.
    var singleLine: String {
        String(unicodeScalars.map { $0 == "\n" || $0 == "\r" ? " " : Character($0) })
    }
}
