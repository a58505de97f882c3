import Glibc
import LatchkeyTestSupport
import Testing

@testable import latchkey

/// The man page and the three completion scripts come from `CommandCatalog` (issue 25): every
/// command, option and fixed value of the catalog is in each of them, the binary prints exactly
/// what the generators make, and each output passes its own tool's syntax check.
@Suite("catalog outputs: completion scripts and man page")
struct CatalogOutputsTests {
    static let everyOption = CommandCatalog.globalOptions + CommandCatalog.all.flatMap(\.options)

    /// A tool the check needs: fails under CI=true when missing, skips visibly otherwise.
    func tool(_ path: String, package: String) throws -> String {
        try Requirement.requireOrSkip(access(path, X_OK) == 0 ? path : nil, "\(path) is not installed (apt-get install \(package))")
    }

    /// True when `word` occurs in `text` as a whole word (not inside a longer name).
    func hasWord(_ text: String, _ word: String) -> Bool {
        let nameCharacters = Set("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_+")
        let chars = Array(text), target = Array(word)
        guard target.count <= chars.count else { return false }
        for start in 0...(chars.count - target.count) where Array(chars[start..<start + target.count]) == target {
            let before = start == 0 ? " " : chars[start - 1]
            let after = start + target.count == chars.count ? " " : chars[start + target.count]
            if !nameCharacters.contains(before) && !nameCharacters.contains(after) { return true }
        }
        return false
    }

    @Test(arguments: CompletionShell.allCases)
    func everyCommandOptionAndChoiceIsInTheScript(_ shell: CompletionShell) {
        let script = shell.script
        for command in CommandCatalog.all {
            for name in [command.name] + command.aliases { #expect(hasWord(script, name), "command \(name)") }
            for word in OptionValueKind.positionalWords(command.argumentsUsage) {
                #expect(hasWord(script, word), "\(command.name) \(word)")
            }
        }
        for spec in Self.everyOption {
            for name in spec.names {
                // fish spells `--flow` as `-l flow` and `-v` as `-s v`.
                let spelled = shell != .fish ? name : (name.hasPrefix("--") ? "-l " + name.dropFirst(2) : "-s " + name.dropFirst())
                #expect(hasWord(script, spelled), "option \(name)")
            }
            if case .choices(let choices) = spec.valueKind {
                // The whole set, as each shell lists the values it offers.
                let list = choices.joined(separator: " ")
                let offered =
                    switch shell {
                    case .bash: "compgen -W '\(list)'"
                    case .zsh: "(" + choices.map { $0.hasSuffix(":") ? $0.dropLast() + "\\:" : $0 }.joined(separator: " ") + ")'"
                    case .fish: "-x -a '\(list)'"
                    }
                #expect(script.contains(offered), "\(spec.key): \(offered)")
            }
        }
    }

    @Test func everyCommandAndOptionIsInTheManPage() {
        let page = ManPage.page(version: ToolVersion.number)
        for command in CommandCatalog.all { #expect(page.contains(".SS " + RoffText.escape(command.name)), "command \(command.name)") }
        for spec in Self.everyOption {
            for name in spec.names { #expect(page.contains("\\fB" + RoffText.escape(name) + "\\fR"), "option \(name)") }
            for variable in spec.environment { #expect(page.contains(".B " + RoffText.escape(variable)), "env \(variable)") }
        }
    }

    /// The catalog's fixed values: a value kind read from the placeholder, so adding a choice to
    /// `--flow` in the catalog is all it takes.
    @Test func fixedValueSetsComeFromThePlaceholders() {
        func kind(_ command: CommandSpec, _ key: OptionKey) -> OptionValueKind? { command.options.first { $0.key == key }?.valueKind }
        #expect(kind(CommandCatalog.login, .flow) == .choices(["device", "browser", "paste", "ciba", "client-credentials", "jwt-bearer"]))
        #expect(kind(CommandCatalog.login, .dpop) == .choices(["auto", "always", "never"]))
        #expect(
            kind(CommandCatalog.login, .authMethod)
                == .choices([
                    "none", "client_secret_basic", "client_secret_post",
                    "private_key_jwt", "tls_client_auth", "self_signed_tls_client_auth"
                ]))
        #expect(kind(CommandCatalog.login, .keySource) == .choices(["machine", "passphrase", "credential", "file:"]))
        #expect(kind(CommandCatalog.login, .clientAssertionAlg) == .text)
        #expect(kind(CommandCatalog.login, .qrFile) == .file)
        #expect(kind(CommandCatalog.fetch, .data) == .file)
        #expect(CommandCatalog.globalOptions.first { $0.key == .profile }?.valueKind == .profile)
        #expect(CommandCatalog.globalOptions.first { $0.key == .stateDir }?.valueKind == .directory)
        #expect(OptionValueKind.positionalWords(CommandCatalog.config.argumentsUsage) == ["get", "set", "unset", "list"])
        #expect(OptionValueKind.positionalWords(CommandCatalog.verify.argumentsUsage).isEmpty)
        // The scripts put catalog words inside single quotes: none may hold one.
        for spec in Self.everyOption { if case .choices(let c) = spec.valueKind { #expect(!c.joined().contains("'"), "\(spec.key)") } }
    }

    @Test func theBinaryPrintsTheGeneratedOutputs() throws {
        try withCLI { cli, _ in
            for shell in CompletionShell.allCases {
                let result = try cli.run(["completion", shell.rawValue])
                #expect(result.exitCode == 0 && result.stdoutText == shell.script, "\(shell): \(result)")
            }
            let manual = try cli.run(["manual"])
            #expect(manual.exitCode == 0 && manual.stdoutText == ManPage.page(version: ToolVersion.number), "\(manual)")
            let bad = try cli.run(["completion", "tcsh"])
            #expect(bad.exitCode == 2 && bad.stderrText.hasPrefix("latchkey: unknown shell 'tcsh'"), "\(bad)")
            let none = try cli.run(["completion"])
            #expect(none.exitCode == 2, "\(none)")
        }
    }

    @Test func eachScriptPassesItsShellsSyntaxCheck() throws {
        let dir = try TemporaryDirectory()
        defer { dir.remove() }
        let checks: [(CompletionShell, String, String, [String])] = [
            (.bash, "/bin/bash", "bash", ["-n"]), (.zsh, "/usr/bin/zsh", "zsh", ["-n"]), (.fish, "/usr/bin/fish", "fish", ["--no-execute"])
        ]
        for (shell, path, package, flags) in checks {
            let shellPath = try tool(path, package: package)
            let file = dir.path + "/latchkey." + shell.rawValue
            #expect(FileText.write(shell.script, to: file))
            let result = try ProcessRunner.run(shellPath, flags + [file])
            #expect(result.exitCode == 0 && result.stderr.isEmpty, "\(shell): \(result)")
        }
    }

    @Test func theManPageRendersWithoutWarnings() throws {
        let man = try tool("/usr/bin/man", package: "man-db")
        let dir = try TemporaryDirectory()
        defer { dir.remove() }
        #expect(FileText.write(ManPage.page(version: ToolVersion.number), to: dir.path + "/latchkey.1"))
        let result = try ProcessRunner.run(
            man, ["--warnings", "-l", dir.path + "/latchkey.1"],
            environment: ["PATH": "/usr/bin:/bin", "MANWIDTH": "80", "LANG": "C.UTF-8"])
        #expect(result.exitCode == 0 && result.stderr.isEmpty, "\(result.stderrText)")
        #expect(result.stdoutText.contains("--all-profiles"), "the page renders the options")
    }

    /// bash completing real command lines, with the profile names read from the state directory.
    @Test func bashCompletesCommandsOptionsValuesAndProfiles() throws {
        let bash = try tool("/bin/bash", package: "bash")
        try withCLI { cli, dir in
            mkdir(cli.stateDirectory, 0o700)
            mkdir(cli.stateDirectory + "/profiles", 0o700)
            for name in ["alpha", "beta"] { #expect(FileText.write("{}", to: cli.stateDirectory + "/profiles/\(name).json")) }
            #expect(FileText.write(BashCompletion.script(), to: dir.path + "/completion.bash"))
            let driver = """
                source "$1"
                latchkey() { "$LATCHKEY_BIN" --state-dir "$STATE" "$@"; }
                t() { COMP_WORDS=("$@"); COMP_CWORD=$((${#COMP_WORDS[@]}-1)); COMPREPLY=(); _latchkey; echo "${COMPREPLY[*]}"; }
                t latchkey lo
                t latchkey login --fl
                t latchkey login --flow ''
                t latchkey --profile x login --dpop = a
                t latchkey status --format ''
                t latchkey credential ''
                t latchkey --profile ''
                t latchkey help to
                """
            let result = try ProcessRunner.run(
                bash, ["-c", driver, "driver", dir.path + "/completion.bash"],
                environment: ["PATH": "/usr/bin:/bin", "LATCHKEY_BIN": cli.binary, "STATE": cli.stateDirectory])
            #expect(
                result.stdoutText == """
                    login logout
                    --flow
                    device browser paste ciba client-credentials jwt-bearer
                    auto always
                    text openmetrics
                    get store erase
                    alpha beta
                    token

                    """, "\(result)")
        }
    }
}
