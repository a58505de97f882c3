/// Sends a parsed command line to the command that implements it.
enum CommandDispatch {
    /// Runs the command named in `context` and returns its exit code.
    static func run(_ context: CommandContext) async throws -> Int32 {
        guard let command = context.arguments.command else { return 2 }
        switch command.name {
        default:
            throw UsageError("'\(command.name)' is not implemented yet", hint: "see docs/cli.md")
        }
    }
}
