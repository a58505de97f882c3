/// One command of the tool: its name, aliases, options, positional arguments and help text.
struct CommandSpec: Sendable {
    /// Which command this is; its name and aliases are written in `CommandName`.
    let id: CommandName
    /// One line for the tool's command list.
    let summary: String
    /// A longer description for the command's own help; may span lines.
    let details: String
    /// The positional arguments as shown in the usage line, e.g. `[TOKEN|-]`; empty when none.
    let argumentsUsage: String
    /// How many positional arguments are accepted at most.
    let maxPositionals: Int
    /// The command's own options (the global options are always accepted as well).
    let options: [OptionSpec]
    /// Headings for the options in `--help`, by option key; empty: one "Options:" list.
    var optionGroups: [OptionGroup] = []
    /// Command lines `--help` shows last, each with what it does.
    var examples: [(command: String, purpose: String)] = []

    /// The option spelled `name` (e.g. `--format` or `-v`), or nil.
    func option(named name: String) -> OptionSpec? {
        options.first { $0.names.contains(name) }
    }

    /// The name typed on the command line, e.g. `token`.
    var name: String { id.rawValue }
    /// Other names accepted for the same command (`whoami` for `claims`).
    var aliases: [String] { id.aliases }
}

/// A heading of a command's `--help` and the keys of the options listed under it.
struct OptionGroup: Sendable {
    let title: String
    let keys: [OptionKey]
}
