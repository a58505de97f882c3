import Testing

@testable import latchkey

/// Names are written once, in `CommandName` and `OptionKey`; the switches over them are checked by
/// the compiler, and what it cannot check is checked here: each name's spec is its own, the parser
/// finds every name and alias, and every key is an option some command declares.
@Suite("Command dispatch")
struct CommandDispatchTests {
    @Test func everyNameHasItsOwnSpecInHelpOrder() {
        for name in CommandName.allCases {
            #expect(CommandCatalog.spec(name).id == name, "\(name.rawValue) -> \(CommandCatalog.spec(name).name)")
        }
        #expect(CommandCatalog.all.map(\.id) == CommandName.allCases)
    }

    @Test func theParserFindsEveryNameAndAlias() {
        for name in CommandName.allCases {
            for word in [name.rawValue] + name.aliases { #expect(CommandCatalog.named(word)?.id == name, "\(word)") }
        }
        #expect(CommandCatalog.named("whoami")?.id == .claims)
        #expect(CommandCatalog.named("idToken") == nil && CommandCatalog.named("") == nil)
    }

    /// A key no command declares could be read but never given: the command line cannot set it.
    @Test func everyOptionKeyIsDeclared() {
        let declared = Set((CommandCatalog.globalOptions + CommandCatalog.all.flatMap(\.options)).map(\.key))
        for key in OptionKey.allCases { #expect(declared.contains(key), "\(key) is read by key but declared nowhere") }
    }

    /// A command declares each key once; the parser would otherwise read the first spec's value kind.
    @Test(arguments: CommandName.allCases)
    func optionsAreDeclaredOnce(name: CommandName) {
        let keys = CommandCatalog.spec(name).options.map(\.key) + CommandCatalog.globalOptions.map(\.key)
        #expect(Set(keys).count == keys.count, "\(name.rawValue): \(keys)")
    }

    /// The commands that must answer before the async runtime starts (the cached `token` path,
    /// local files) keep a synchronous runner.
    @Test(arguments: [CommandName.token, .proof, .idToken, .claims, .status, .profiles, .completion, .manual])
    func answersWithoutWaiting(name: CommandName) {
        switch CommandDispatch.runner(for: name) {
        case .synchronous, .synchronousFirst: break
        case .asynchronous: Issue.record("\(name.rawValue) has no synchronous path")
        }
    }
}
