/// `latchkey completion bash|zsh|fish` prints a completion script; `completion profiles` the
/// profile names the scripts offer. `latchkey manual` prints latchkey(1). No network, no secret.
enum CompletionCommand {
    static func run(_ context: CommandContext) throws -> Int32 {
        guard let word = context.arguments.positionals.first else {
            throw UsageError("completion needs a shell: bash, zsh or fish", command: .completion)
        }
        if word == "profiles" {
            let names = ProfileAccess(context).profiles.list()
            context.console.out(names.map { $0 + "\n" }.joined())
            return 0
        }
        guard let shell = CompletionShell(rawValue: word) else {
            throw UsageError("unknown shell '\(word)'", command: .completion, hint: "the shells are: bash, zsh, fish")
        }
        context.console.out(shell.script)
        return 0
    }

    static func manual(_ context: CommandContext) -> Int32 {
        context.console.out(ManPage.page(version: ToolVersion.number))
        return 0
    }
}
