import Latchkey

/// The one-line clock diagnosis after a refresh (cli.md "Clocks"): `login` reports it as a
/// `LoginEvent`; `token` and `refresh` print it on stderr, which their output never uses.
enum ClockSkewNotice {
    /// Prints the warning when the last answer's `Date` showed the local clock off by more than the leeway.
    static func show(_ session: Session, _ context: CommandContext) async {
        if let seconds = await session.significantClockSkew { context.console.warn(line(seconds)) }
    }

    /// "the local clock is N s behind/ahead of the provider's; check NTP" for an offset of
    /// `seconds` (provider minus local).
    static func line(_ seconds: Int64) -> String {
        "the local clock is \(seconds.magnitude) s \(seconds > 0 ? "behind" : "ahead of") the provider's; check NTP"
    }
}
