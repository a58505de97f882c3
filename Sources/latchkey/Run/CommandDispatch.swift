/// Sends a parsed command line to the command that implements it.
///
/// Command names are written once, in `CommandCatalog`: this table is keyed by the catalog's own
/// specs, so a renamed command cannot leave a stale string behind, and a test checks that every
/// command of the catalog has exactly one entry here.
enum CommandDispatch {
    /// How a command runs: some finish without waiting (a cached token, local files), which keeps
    /// the hot path off the async runtime; the rest need it.
    enum Runner: Sendable {
        /// Only the synchronous path.
        case synchronous(@Sendable (CommandContext) throws -> Int32)
        /// The synchronous path when it can answer (nil: it cannot), else the async one.
        case synchronousFirst(@Sendable (CommandContext) throws -> Int32?, then: @Sendable (CommandContext) async throws -> Int32)
        /// Only the async path.
        case asynchronous(@Sendable (CommandContext) async throws -> Int32)
    }

    /// `token`'s runner, which the hot path finds without the table: making `runners` builds every
    /// command's spec, help text and all (51 K of a cached `latchkey token`'s instructions).
    static let tokenRunner = Runner.synchronousFirst(TokenCommand.cached, then: TokenCommand.run)

    /// Every command of `CommandCatalog.all`, with how it runs.
    static let runners: [(spec: CommandSpec, runner: Runner)] = [
        (CommandCatalog.login, .asynchronous(LoginCommand.run)),
        (CommandCatalog.token, tokenRunner),
        (CommandCatalog.proof, .synchronousFirst(ProofCommand.cached, then: ProofCommand.run)),
        (CommandCatalog.idToken, .synchronous(StoredTokenCommands.idToken)),
        (CommandCatalog.claims, .synchronous(StoredTokenCommands.claims)),
        (CommandCatalog.status, .synchronous(StatusCommand.run)),
        (CommandCatalog.refresh, .asynchronous(SessionCommands.refresh)),
        (CommandCatalog.logout, .asynchronous(SessionCommands.logout)),
        (CommandCatalog.verify, .asynchronous(VerifyCommand.run)),
        (CommandCatalog.discover, .asynchronous(DiscoverCommand.run)),
        (CommandCatalog.profiles, .synchronous(ProfilesCommand.run)),
        (CommandCatalog.fetch, .asynchronous(FetchCommand.run)),
        (CommandCatalog.credential, .asynchronous(CredentialCommand.run)),
        (CommandCatalog.exchange, .asynchronous(ExchangeCommand.run)),
        (CommandCatalog.config, .asynchronous(ConfigCommand.run)),
        (CommandCatalog.register, .asynchronous(RegisterCommand.run)),
        (CommandCatalog.completion, .synchronous(CompletionCommand.run)),
        (CommandCatalog.manual, .synchronous({ CompletionCommand.manual($0) }))
    ]

    /// The runner of the parsed command (the parser has already resolved aliases to the spec).
    static func runner(for command: CommandSpec) -> Runner? {
        // The parser has built `token`'s spec already; comparing with it builds nothing else.
        if command.name == CommandCatalog.token.name { return tokenRunner }
        return runners.first { $0.spec.name == command.name }?.runner
    }

    /// Runs the command named in `context` and returns its exit code.
    static func run(_ context: CommandContext) async throws -> Int32 {
        guard let command = context.arguments.command else { return 2 }
        switch runner(for: command) {
        case .synchronous(let run)?: return try run(context)
        case .synchronousFirst(let first, let then)?:
            if let code = try first(context) { return code }
            return try await then(context)
        case .asynchronous(let run)?: return try await run(context)
        case nil: throw UsageError("unknown command '\(command.name)'")
        }
    }

    /// Runs the command if it can finish without waiting; nil when it needs the async path.
    static func runSynchronously(_ context: CommandContext) throws -> Int32? {
        guard let command = context.arguments.command else { return nil }
        switch runner(for: command) {
        case .synchronous(let run)?: return try run(context)
        case .synchronousFirst(let first, _)?: return try first(context)
        case .asynchronous?, nil: return nil
        }
    }
}
