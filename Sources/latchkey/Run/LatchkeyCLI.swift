/// The tool's entry point: parse, handle `--help`/`--version`, run the command, and turn any
/// failure into one error line, a hint line and the contract's exit code.
enum LatchkeyCLI {
    /// What to do after parsing.
    enum Start {
        /// Finished already (help, version, usage error) with this exit code.
        case exit(Int32)
        /// Run a command.
        case run(CommandContext)
    }

    /// Parses `arguments` (without the program name) and resolves the globals.
    static func prepare(arguments: [String], environment: ProcessEnvironment) -> Start {
        do {
            let parsed = try ArgumentParser().parse(arguments)
            if parsed.has(.help) {
                Console.write(1, parsed.command.map(HelpText.command) ?? HelpText.tool(version: ToolVersion.number))
                return .exit(0)
            }
            if parsed.has(.version) {
                Console.write(1, ToolVersion.line + "\n")
                return .exit(0)
            }
            guard parsed.command != nil else {
                throw UsageError(
                    "no command given",
                    hint: "the commands are: "
                        + CommandCatalog.all.map(\.name).joined(separator: ", ")
                        + "; run 'latchkey --help' for more")
            }
            let globals = try GlobalOptions(parsed, environment: environment)
            let console = Console(environment: environment, quiet: globals.quiet)
            return .run(CommandContext(arguments: parsed, globals: globals, environment: environment, console: console))
        } catch {
            return .exit(FailureReport(error).emit())
        }
    }

    /// Runs the commands that never wait or touch the network on the calling thread, without
    /// starting the concurrency runtime: `token` with a valid cached token, `status`, `claims`,
    /// `id-token`, `profiles`. Returns nil when the command needs `run(_:)`.
    static func runWithoutConcurrency(_ context: CommandContext) -> Int32? {
        do {
            return try CommandDispatch.runSynchronously(context)
        } catch {
            return FailureReport(error).naming(stateDirectory: ProfileAccess(context).stateDirectory).emit()
        }
    }

    /// Runs any command and returns its exit code.
    static func run(_ context: CommandContext) async -> Int32 {
        do {
            return try await CommandDispatch.run(context)
        } catch {
            return FailureReport(error).naming(stateDirectory: ProfileAccess(context).stateDirectory).emit()
        }
    }
}
