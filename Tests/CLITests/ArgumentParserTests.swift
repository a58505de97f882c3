import Testing

@testable import latchkey

@Suite("Argument parser")
struct ArgumentParserTests {
    let parser = ArgumentParser()

    @Test func globalOptionsBeforeAndAfterTheCommand() throws {
        let before = try parser.parse(["--profile", "work", "--json", "token"])
        let after = try parser.parse(["token", "--profile", "work", "--json"])
        for parsed in [before, after] {
            #expect(parsed.command?.name == "token")
            #expect(parsed.string(.profile) == "work")
            #expect(parsed.has(.json))
            #expect(!parsed.has(.verbose))
        }
    }

    @Test func equalsAndSpaceFormsAreEquivalent() throws {
        let spaced = try parser.parse(["token", "--format", "header", "--min-ttl", "120"])
        let joined = try parser.parse(["token", "--format=header", "--min-ttl=120"])
        #expect(spaced.string(.format) == "header" && joined.string(.format) == "header")
        #expect(try spaced.nonNegativeInteger(.minTTL, default: 60) == 120)
        #expect(try joined.nonNegativeInteger(.minTTL, default: 60) == 120)
    }

    @Test func equalsFormKeepsLaterEqualsSignsAndEmptyValues() throws {
        let parsed = try parser.parse(["verify", "--audience=a=b", "--issuer="])
        #expect(parsed.string(.audience) == "a=b")
        #expect(parsed.string(.issuer) == "")
    }

    @Test func shortFlags() throws {
        let parsed = try parser.parse(["-v", "status"])
        #expect(parsed.has(.verbose))
        #expect(try parser.parse(["status", "-q"]).has(.quiet))
        #expect(try parser.parse(["-h"]).has(.help))
    }

    @Test func doubleDashEndsOptions() throws {
        let parsed = try parser.parse(["verify", "--", "--not-an-option"])
        #expect(parsed.positionals == ["--not-an-option"])
        let stdin = try parser.parse(["verify", "-"])
        #expect(stdin.positionals == ["-"])
    }

    @Test func commandAfterDoubleDash() throws {
        let parsed = try parser.parse(["--json", "--", "status"])
        #expect(parsed.command?.name == "status")
    }

    @Test func aliasesResolveToTheCommand() throws {
        #expect(try parser.parse(["whoami"]).command?.name == "claims")
    }

    @Test func lastOccurrenceWinsAndOrderIsKnown() throws {
        let parsed = try parser.parse(["login", "--qr", "--no-qr", "--scope", "a", "--scope", "b"])
        #expect(parsed.string(.scope) == "b")
        #expect(parsed.isLater(.noQR, than: .qr))
        #expect(!parsed.isLater(.qr, than: .noQR))
        let other = try parser.parse(["login", "--no-qr", "--qr"])
        #expect(other.isLater(.qr, than: .noQR))
    }

    @Test func unknownOptionIsAUsageError() {
        #expect(throws: UsageError.self) { try parser.parse(["token", "--bogus"]) }
        #expect(throws: UsageError.self) { try parser.parse(["--bogus"]) }
        #expect(throws: UsageError.self) { try parser.parse(["token", "-x"]) }
        do {
            _ = try parser.parse(["token", "--bogus"])
            Issue.record("expected an error")
        } catch {
            #expect(error.message == "unknown option '--bogus' for 'token'")
            #expect(error.hint.contains("latchkey token --help"))
        }
    }

    @Test func commandOptionBeforeTheCommandSaysWhereItBelongs() {
        do {
            _ = try parser.parse(["--format", "json", "token"])
            Issue.record("expected an error")
        } catch {
            #expect(error.message.contains("belongs after a command"))
        }
    }

    @Test func optionOfAnotherCommandIsRefused() {
        #expect(throws: UsageError.self) { try parser.parse(["claims", "--format", "json"]) }
    }

    @Test func unknownCommandIsAUsageError() {
        #expect(throws: UsageError.self) { try parser.parse(["fly"]) }
    }

    @Test func missingValueIsAUsageError() throws {
        #expect(throws: UsageError.self) { try parser.parse(["token", "--format"]) }
        // The next option is not taken as the value.
        #expect(throws: UsageError.self) { try parser.parse(["login", "--issuer", "--client-id", "x"]) }
        // …but the `=` form accepts a value that begins with dashes.
        #expect(try parser.parse(["login", "--client-id=--x"]).string(.clientID) == "--x")
    }

    @Test func flagWithValueIsAUsageError() {
        #expect(throws: UsageError.self) { try parser.parse(["token", "--force-refresh=yes"]) }
        #expect(throws: UsageError.self) { try parser.parse(["--json=1", "status"]) }
    }

    @Test func tooManyPositionalsIsAUsageError() {
        #expect(throws: UsageError.self) { try parser.parse(["token", "extra"]) }
        #expect(throws: UsageError.self) { try parser.parse(["verify", "a", "b"]) }
    }

    @Test func typedAccessorsRejectBadValues() throws {
        let parsed = try parser.parse(["token", "--min-ttl", "soon", "--format", "yaml"])
        #expect(throws: UsageError.self) { try parsed.nonNegativeInteger(.minTTL, default: 60) }
        #expect(throws: UsageError.self) { try parsed.choice(.format, ["bare", "json"], default: "bare") }
        let negative = try parser.parse(["token", "--min-ttl=-5"])
        #expect(throws: UsageError.self) { try negative.nonNegativeInteger(.minTTL, default: 60) }
        let defaults = try parser.parse(["token"])
        #expect(try defaults.nonNegativeInteger(.minTTL, default: 60) == 60)
        #expect(try defaults.choice(.format, ["bare", "json"], default: "bare") == "bare")
        let timeout = try parser.parse(["login", "--timeout", "0"])
        #expect(throws: UsageError.self) { try timeout.positiveSeconds(.timeout) }
    }

    @Test func requiredValue() throws {
        let parsed = try parser.parse(["discover"])
        #expect(throws: UsageError.self) { try parsed.required(.issuer) }
        #expect(try parser.parse(["discover", "--issuer", "https://x"]).required(.issuer) == "https://x")
    }

    @Test func everyCommandOptionIsUniqueAndDocumented() {
        let globalNames = Set(CommandCatalog.globalOptions.flatMap(\.names))
        for command in CommandCatalog.all {
            let names = command.options.flatMap(\.names)
            #expect(Set(names).count == names.count, "duplicate option in \(command.name)")
            #expect(Set(names).isDisjoint(with: globalNames), "\(command.name) shadows a global option")
            let help = HelpText.command(command)
            for name in names { #expect(help.contains(name), "\(command.name) help lacks \(name)") }
            for name in globalNames { #expect(help.contains(name)) }
        }
    }
}

@Suite("Global options and environment")
struct GlobalOptionsTests {
    @Test func environmentSuppliesDefaults() throws {
        let parsed = try ArgumentParser().parse(["status"])
        let env = ProcessEnvironment.fixed([
            "LATCHKEY_PROFILE": "ci", "LATCHKEY_STATE_DIR": "/tmp/s",
            "SSL_CERT_FILE": "/etc/ssl/b.pem"
        ])
        let globals = try GlobalOptions(parsed, environment: env)
        #expect(globals.profile == "ci")
        #expect(globals.stateDirectoryOverride == "/tmp/s")
        #expect(globals.caFile == "/etc/ssl/b.pem")
    }

    @Test func optionsBeatEnvironment() throws {
        let parsed = try ArgumentParser().parse(["status", "--profile", "p", "--ca-file", "/a.pem", "--state-dir", "/d"])
        let env = ProcessEnvironment.fixed([
            "LATCHKEY_PROFILE": "ci", "LATCHKEY_CA_FILE": "/b.pem",
            "SSL_CERT_FILE": "/c.pem", "LATCHKEY_STATE_DIR": "/e"
        ])
        let globals = try GlobalOptions(parsed, environment: env)
        #expect(globals.profile == "p")
        #expect(globals.caFile == "/a.pem")
        #expect(globals.caFileOption == "/a.pem")
        #expect(globals.stateDirectoryOverride == "/d")
    }

    @Test func latchkeyCAFileBeatsSSLCertFile() throws {
        let parsed = try ArgumentParser().parse(["status"])
        let env = ProcessEnvironment.fixed(["LATCHKEY_CA_FILE": "/b.pem", "SSL_CERT_FILE": "/c.pem"])
        #expect(try GlobalOptions(parsed, environment: env).caFile == "/b.pem")
        // Only the option itself is what `login` remembers, never a variable.
        #expect(try GlobalOptions(parsed, environment: env).caFileOption == nil)
    }

    @Test func defaultProfile() throws {
        let parsed = try ArgumentParser().parse(["status"])
        let globals = try GlobalOptions(parsed, environment: .fixed([:]))
        #expect(globals.profile == "default")
        #expect(globals.stateDirectoryOverride == nil)
        #expect(globals.caFile == nil)
    }

    @Test func unsafeProfileNamesAreRefused() throws {
        for bad in ["../x", "a/b", ".hidden", "", "sp ace", "me@corp", String(repeating: "a", count: 65)] {
            let parsed = try ArgumentParser().parse(["status", "--profile=" + bad])
            #expect(throws: UsageError.self, "\(bad)") { try GlobalOptions(parsed, environment: .fixed([:])) }
        }
        for good in ["default", "work-2", "a.b_c", "A9"] {
            #expect(try ProfileName.validated(good) == good)
        }
    }

    @Test func verboseAndQuietContradict() throws {
        let parsed = try ArgumentParser().parse(["-v", "-q", "status"])
        #expect(throws: UsageError.self) { try GlobalOptions(parsed, environment: .fixed([:])) }
    }
}

/// `CommandCatalog.named` (which builds one command's spec, not all of them) finds what `all` holds.
@Suite struct CommandLookupTests {
    @Test func everyCommandAndAliasIsFoundByName() {
        for spec in CommandCatalog.all {
            #expect(CommandCatalog.named(spec.name)?.name == spec.name)
            for alias in spec.aliases { #expect(CommandCatalog.named(alias)?.name == spec.name, "\(alias)") }
        }
        #expect(CommandCatalog.named("no-such-command") == nil)
    }
}
