/// What every command receives: the parsed command line, the resolved globals, the environment
/// and the console.
struct CommandContext: Sendable {
    /// The parsed command line.
    let arguments: ParsedArguments
    /// Global options after environment and defaults.
    let globals: GlobalOptions
    /// The process environment (or a test's).
    let environment: ProcessEnvironment
    /// Where output goes.
    let console: Console
}
