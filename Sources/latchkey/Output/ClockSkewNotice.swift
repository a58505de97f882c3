import Latchkey

/// The one-line clock diagnosis after a refresh (cli.md "Clocks"): `login` reports it as a
/// `LoginEvent`; `token` and `refresh` print it on stderr, which their output never uses.
enum ClockSkewNotice {
    /// Prints the warning when the last answer's `Date` showed the local clock off by more than the leeway.
    static func show(_ session: Session, _ context: CommandContext) async {
        if let warning = await session.clockSkewWarning { context.console.warn(warning) }
    }
}
