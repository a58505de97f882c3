import LatchkeyTestSupport
import Testing

@testable import latchkey

/// `--help` as a newcomer reads it (issue 27, item 13): `help COMMAND`, the whole exit-code list,
/// and `login --help` in groups with examples.
@Suite("latchkey binary: help layout")
struct HelpLayoutProcessTests {
    /// The line number of the line that is exactly `line`, or nil.
    func lineIndex(of line: String, in text: String) -> Int? {
        text.split(separator: "\n", omittingEmptySubsequences: false).firstIndex { $0 == line }
    }

    @Test func helpCommandIsAnAliasOfDashDashHelp() throws {
        try withCLI { cli, _ in
            for command in CommandCatalog.all.map(\.name) + ["whoami"] {
                let alias = try cli.run(["help", command])
                let flag = try cli.run([command, "--help"])
                #expect(alias.exitCode == 0 && alias.stdoutText == flag.stdoutText, "help \(command): \(alias)")
            }
            let tool = try cli.run(["help"])
            let toolFlag = try cli.run(["--help"])
            #expect(tool.exitCode == 0 && tool.stdoutText == toolFlag.stdoutText, "\(tool)")
            let unknown = try cli.run(["help", "frobnicate"])
            #expect(unknown.exitCode == 2, "\(unknown)")
            #expect(unknown.stderrText.hasPrefix("latchkey: unknown command 'frobnicate'"), "\(unknown)")
        }
    }

    @Test func theExitCodeFooterListsEveryCode() throws {
        try withCLI { cli, _ in
            for arguments in [["--help"], ["fetch", "--help"], ["login", "--help"]] {
                let text = try cli.run(arguments).stdoutText
                for code in ["0 success", "2 usage", "9 local storage", "10 fetch: HTTP error", "130 interrupted", "143 terminated"] {
                    #expect(text.contains(code), "\(arguments) lacks '\(code)'")
                }
            }
        }
    }

    @Test func loginHelpIsGroupedWithExamples() throws {
        try withCLI { cli, _ in
            let text = try cli.run(["login", "--help"]).stdoutText
            let headings = [
                "Common options:", "Device flow:", "Browser and paste flows:", "CIBA:", "Client authentication:",
                "DPoP:", "Kiosk:", "Endpoint overrides:", "git and logout:", "Examples:"
            ]
            let positions = headings.map { lineIndex(of: $0, in: text) }
            #expect(!positions.contains(nil), "missing headings in:\n\(text)")
            let found = positions.compactMap { $0 }
            #expect(found == found.sorted(), "headings out of order")
            // Every login option sits in exactly one group (a new option must be given one).
            let spec = CommandCatalog.login
            let grouped = spec.optionGroups.flatMap(\.keys)
            #expect(Set(grouped) == Set(spec.options.map(\.key)), "ungrouped: \(Set(spec.options.map(\.key)).subtracting(grouped))")
            #expect(grouped.count == Set(grouped).count, "an option in two groups")
            #expect(text.components(separatedBy: "\n  latchkey ").count - 1 == 4, "four examples:\n\(text)")
            #expect(text.contains("space- or comma-separated"), "the --scope help")
        }
    }
}
