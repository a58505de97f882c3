/// Renders `--help` for the tool and for each command: usage, description, and every option with
/// its default and environment variables.
enum HelpText {
    /// Help for the whole tool.
    static func tool(version: String) -> String {
        var out = "latchkey \(version): OAuth 2.0 / OpenID Connect sign-in for devices without a browser.\n\n"
        out += "Usage: latchkey [GLOBAL OPTIONS] COMMAND [OPTIONS] [ARGS]\n\nCommands:\n"
        let width = CommandCatalog.all.map { ($0.name + aliasText($0)).count }.max() ?? 0
        for command in CommandCatalog.all {
            let label = command.name + aliasText(command)
            out += "  " + padded(label, to: width) + "  " + command.summary + "\n"
        }
        out += "\nGlobal options (before or after the command):\n"
        out += optionTable(CommandCatalog.globalOptions)
        out += "\nRun 'latchkey COMMAND --help' (or 'latchkey help COMMAND') for a command's options.\n"
        out += exitCodes
        return out
    }

    /// Help for one command.
    static func command(_ command: CommandSpec) -> String {
        var out = "Usage: latchkey [GLOBAL OPTIONS] \(command.name) [OPTIONS]"
        if !command.argumentsUsage.isEmpty { out += " " + command.argumentsUsage }
        out += "\n"
        if !command.aliases.isEmpty { out += "Alias: " + command.aliases.joined(separator: ", ") + "\n" }
        out += "\n" + command.details + "\n"
        if !command.optionGroups.isEmpty {
            // A long option list reads in groups (login has dozens); every option is in one group.
            for group in command.optionGroups {
                let options = group.keys.compactMap { key in command.options.first { $0.key == key } }
                out += "\n\(group.title):\n" + optionTable(options)
            }
        } else if !command.options.isEmpty {
            out += "\nOptions:\n" + optionTable(command.options)
        }
        out += "\nGlobal options:\n" + optionTable(CommandCatalog.globalOptions)
        if !command.examples.isEmpty {
            out += "\nExamples:\n"
            for example in command.examples { out += "  # " + example.purpose + "\n  " + example.command + "\n" }
        }
        out += exitCodes
        return out
    }

    static let exitCodes = """

        Exit codes: 0 success, 1 internal error, 2 usage, 3 not signed in, 4 denied, 5 timed out,
        6 network/TLS, 7 protocol/server, 8 verification failed, 9 local storage,
        10 fetch: HTTP error (status 400 or more), 130 interrupted (SIGINT), 143 terminated (SIGTERM).

        """

    private static func aliasText(_ command: CommandSpec) -> String {
        command.aliases.isEmpty ? "" : " (" + command.aliases.joined(separator: ", ") + ")"
    }

    private static func optionTable(_ options: [OptionSpec]) -> String {
        let labels = options.map { spec -> String in
            var label = spec.names.joined(separator: ", ")
            if let value = spec.valueName { label += " " + value }
            return label
        }
        let width = min(labels.map(\.count).max() ?? 0, 34)
        var out = ""
        for (spec, label) in zip(options, labels) {
            var line = "  " + padded(label, to: width)
            if label.count > width { line += "\n  " + padded("", to: width) }
            line += "  " + spec.help
            var notes: [String] = []
            if let def = spec.defaultDescription { notes.append("default: " + def) }
            if !spec.environment.isEmpty { notes.append("env: " + spec.environment.joined(separator: ", ")) }
            if !notes.isEmpty { line += " [" + notes.joined(separator: "; ") + "]" }
            out += line + "\n"
        }
        return out
    }

    private static func padded(_ text: String, to width: Int) -> String {
        text.count >= width ? text : text + String(repeating: " ", count: width - text.count)
    }
}
