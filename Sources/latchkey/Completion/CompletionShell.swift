/// The shells `latchkey completion` writes a script for. Every script is generated from
/// `CommandCatalog`, so it offers exactly the commands and options the parser accepts.
enum CompletionShell: String, CaseIterable, Sendable {
    case bash, zsh, fish

    /// The completion script for this shell.
    var script: String {
        switch self {
        case .bash: return BashCompletion.script()
        case .zsh: return ZshCompletion.script()
        case .fish: return FishCompletion.script()
        }
    }
}

/// What every script needs from the catalog, in one place.
enum CompletionWords {
    /// The words that start a command: names, aliases, and `help`.
    static var commandWords: [String] {
        CommandCatalog.all.flatMap { [$0.name] + $0.aliases } + ["help"]
    }

    /// Every spelling of every option that takes a value, global or a command's, without repeats:
    /// a scanner skips the word after these when it looks for the command.
    static var valueOptionNames: [String] {
        var seen: [String] = []
        for spec in CommandCatalog.globalOptions + CommandCatalog.all.flatMap(\.options) where spec.takesValue {
            for name in spec.names where !seen.contains(name) { seen.append(name) }
        }
        return seen
    }

    /// The command that asks the binary for the profile names (the state directory's).
    static let profileLister = "latchkey completion profiles 2>/dev/null"
}
