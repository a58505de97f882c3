/// The tool's entry point: parse, handle `--help`/`--version`, run the command, and turn any
/// failure into one error line, a hint line and the contract's exit code.
enum LatchkeyCLI {
    /// Runs the tool with `arguments` (without the program name) and returns the exit code.
    static func run(arguments: [String], environment: ProcessEnvironment) async -> Int32 {
        let parsed: ParsedArguments
        let globals: GlobalOptions
        do {
            parsed = try ArgumentParser().parse(arguments)
            if parsed.has("help") {
                Console.write(1, parsed.command.map(HelpText.command) ?? HelpText.tool(version: ToolVersion.number))
                return 0
            }
            if parsed.has("version") {
                Console.write(1, ToolVersion.line + "\n")
                return 0
            }
            guard parsed.command != nil else {
                throw UsageError("no command given", hint: "the commands are: "
                                 + CommandCatalog.all.map(\.name).joined(separator: ", ")
                                 + "; run 'latchkey --help' for more")
            }
            globals = try GlobalOptions(parsed, environment: environment)
        } catch {
            return FailureReport(error).emit()
        }
        let console = Console(environment: environment, quiet: globals.quiet)
        let context = CommandContext(arguments: parsed, globals: globals, environment: environment, console: console)
        do {
            return try await CommandDispatch.run(context)
        } catch {
            return FailureReport(error).emit()
        }
    }
}
