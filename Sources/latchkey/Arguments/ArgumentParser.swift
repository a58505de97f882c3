/// Parses `latchkey [GLOBAL OPTIONS] COMMAND [OPTIONS] [ARGS]` (docs/cli.md).
///
/// Rules: global options are accepted before or after the command; `--opt value` and `--opt=value`
/// are equivalent; `--` ends the options; a value that itself begins with `--` must be given as
/// `--opt=--value`, so a forgotten value never swallows the next option. Anything unknown is a
/// `UsageError` (exit code 2). The parser only splits text: values are checked by the commands.
struct ArgumentParser: Sendable {
    /// The commands, for the messages that list them (a command is looked up with
    /// `CommandCatalog.named`, which builds only that one).
    var commands: [CommandSpec] { CommandCatalog.all }
    /// Options accepted everywhere.
    let globalOptions: [OptionSpec]

    /// A parser for the given command set.
    init(globalOptions: [OptionSpec] = CommandCatalog.globalOptions) {
        self.globalOptions = globalOptions
    }

    /// Parses `arguments` (without the program name).
    func parse(_ arguments: [String]) throws(UsageError) -> ParsedArguments {
        var result = ParsedArguments()
        var index = 0
        var optionsEnded = false
        var counter = 0
        while index < arguments.count {
            let word = arguments[index]
            index += 1
            if !optionsEnded && word == "--" {
                optionsEnded = true
                continue
            }
            if optionsEnded || word == "-" || !word.hasPrefix("-") {
                try takePositional(word, into: &result)
                continue
            }
            // An option: split `--name=value`; short options never carry an inline value.
            var name = word
            var inlineValue: String?
            if word.hasPrefix("--"), let eq = word.firstIndex(of: "=") {
                name = String(word[..<eq])
                inlineValue = String(word[word.index(after: eq)...])
            }
            guard let spec = lookup(name, command: result.command) else {
                throw unknownOption(name, command: result.command)
            }
            var value = ""
            if spec.takesValue {
                if let inlineValue {
                    value = inlineValue
                } else {
                    guard index < arguments.count, !arguments[index].hasPrefix("--") else {
                        throw UsageError(
                            "option \(name) needs a value (\(spec.valueName ?? "VALUE"))",
                            command: result.command?.id,
                            hint: index < arguments.count
                                ? "write \(name)=VALUE for a value that begins with '--'"
                                : nil)
                    }
                    value = arguments[index]
                    index += 1
                }
            } else if inlineValue != nil {
                throw UsageError("option \(name) takes no value", command: result.command?.id)
            }
            counter += 1
            result.record(spec.key, value, order: counter)
        }
        return result
    }

    private func takePositional(_ word: String, into result: inout ParsedArguments) throws(UsageError) {
        guard let command = result.command else {
            // `latchkey help [COMMAND]` is `latchkey [COMMAND] --help`, as git and gh read it.
            if word == "help", !result.has(.help) {
                result.record(.help, "", order: 0)
                return
            }
            guard let found = CommandCatalog.named(word) else {
                throw UsageError(
                    "unknown command '\(word)'",
                    hint: "the commands are: " + commands.map(\.name).joined(separator: ", "))
            }
            result.command = found
            return
        }
        guard result.positionals.count < command.maxPositionals else {
            throw UsageError("unexpected argument '\(word)' for '\(command.name)'", command: command.id)
        }
        result.positionals.append(word)
    }

    private func lookup(_ name: String, command: CommandSpec?) -> OptionSpec? {
        if let command, let spec = command.option(named: name) { return spec }
        return globalOptions.first { $0.names.contains(name) }
    }

    private func unknownOption(_ name: String, command: CommandSpec?) -> UsageError {
        if let command {
            return UsageError("unknown option '\(name)' for '\(command.name)'", command: command.id)
        }
        // A command's option given before the command: say where it belongs.
        let owners = commands.filter { $0.option(named: name) != nil }.map(\.name)
        if !owners.isEmpty {
            return UsageError(
                "option '\(name)' belongs after a command (\(owners.joined(separator: ", ")))",
                hint: "write it after the command, e.g. 'latchkey \(owners[0]) \(name) …'")
        }
        return UsageError("unknown option '\(name)'")
    }
}
