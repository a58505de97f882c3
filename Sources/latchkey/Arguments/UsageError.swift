/// A mistake on the command line: unknown option or command, missing or bad value. Exit code 2.
struct UsageError: Error, Sendable, Equatable {
    /// What was wrong, for the `latchkey: …` line.
    let message: String
    /// What to do about it, for the hint line.
    let hint: String

    /// Makes a usage error; the default hint points at the relevant `--help`.
    init(_ message: String, command: CommandName? = nil, hint: String? = nil) {
        self.message = message
        if let hint {
            self.hint = hint
        } else if let command {
            self.hint = "run 'latchkey \(command.rawValue) --help' for its options"
        } else {
            self.hint = "run 'latchkey --help' for the commands and options"
        }
    }
}
