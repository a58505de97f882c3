/// `latchkey manual`: latchkey(1) in roff, generated from `CommandCatalog` and the help text, so
/// the page lists exactly what `--help` does. The package build runs the built binary to make it.
enum ManPage {
    static func page(version: String) -> String {
        var out = """
            .TH LATCHKEY 1 "" "latchkey \(RoffText.escape(version))" "User Commands"
            .SH NAME
            latchkey \\- OAuth 2.0 / OpenID Connect sign\\-in for devices without a browser
            .SH SYNOPSIS
            .B latchkey
            [\\fIGLOBAL OPTIONS\\fR] \\fICOMMAND\\fR [\\fIOPTIONS\\fR] [\\fIARGS\\fR]
            .SH DESCRIPTION
            latchkey signs a device into an OAuth 2.0 / OpenID Connect provider (device flow, code flow
            with PKCE, CIBA, client credentials) and keeps its tokens fresh in an encrypted token file.
            Global options are accepted before or after the command;
            .B latchkey help
            .I COMMAND
            prints a command's help.
            .SH GLOBAL OPTIONS

            """
        out += options(CommandCatalog.globalOptions)
        out += ".SH COMMANDS\n"
        for command in CommandCatalog.all { out += section(command) }
        out += ".SH EXIT STATUS\n"
        out += RoffText.escape(HelpText.exitCodes.split(separator: "\n").joined(separator: " ")) + "\n"
        out += ".SH ENVIRONMENT\n"
        var seen: [String] = []
        for spec in CommandCatalog.globalOptions + CommandCatalog.all.flatMap(\.options) {
            for name in spec.environment where !seen.contains(name) {
                seen.append(name)
                out += ".TP\n.B \(RoffText.escape(name))\nthe default of \\fB\(RoffText.escape(spec.names.last ?? spec.key.longName))\\fR\n"
            }
        }
        out += """
            .SH FILES
            Profiles, token files, keys and locks live under the state directory (\\fB\\-\\-state\\-dir\\fR).
            .SH SEE ALSO
            The full reference, with every output and exit code, is docs/cli.md in the source
            (/usr/share/doc/latchkey in the package).

            """
        return out
    }

    /// A command's subsection: usage, description, options, examples.
    private static func section(_ command: CommandSpec) -> String {
        var out = ".SS \(RoffText.escape(command.name))"
        if !command.argumentsUsage.isEmpty { out += " \(RoffText.escape(command.argumentsUsage))" }
        out += "\n"
        if !command.aliases.isEmpty { out += "Alias: \(RoffText.escape(command.aliases.joined(separator: ", "))).\n.br\n" }
        out += RoffText.escape(command.summary) + ".\n.PP\n" + RoffText.escape(command.details) + "\n"
        out += options(command.options)
        for example in command.examples {
            out += ".PP\n" + RoffText.escape(example.purpose) + ":\n.RS\n.nf\n" + RoffText.escape(example.command) + "\n.fi\n.RE\n"
        }
        return out
    }

    /// One tagged paragraph per option, with its default and environment as `--help` gives them.
    private static func options(_ specs: [OptionSpec]) -> String {
        var out = ""
        for spec in specs {
            out += ".TP\n\\fB" + spec.names.map(RoffText.escape).joined(separator: "\\fR, \\fB") + "\\fR"
            if let value = spec.valueName { out += " \\fI" + RoffText.escape(value) + "\\fR" }
            out += "\n" + RoffText.escape(spec.help)
            var notes: [String] = []
            if let def = spec.defaultDescription { notes.append("default: " + def) }
            if !spec.environment.isEmpty { notes.append("env: " + spec.environment.joined(separator: ", ")) }
            if !notes.isEmpty { out += " [" + RoffText.escape(notes.joined(separator: "; ")) + "]" }
            out += "\n"
        }
        return out
    }
}
