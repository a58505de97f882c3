/// Sends a parsed command line to the command that implements it.
///
/// Command names are written once, in `CommandName`: the runner is chosen by an exhaustive switch
/// over it, so a command cannot be left without a runner or given two, and a renamed command
/// leaves no stale string behind.
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

    /// How `command` runs. A switch, not a table of every command: the hot path builds nothing for
    /// the commands it does not run (a table of specs cost a cached `latchkey token` 51 K instructions).
    static func runner(for command: CommandName) -> Runner {
        switch command {
        case .login: .asynchronous(LoginCommand.run)
        case .token: .synchronousFirst(TokenCommand.cached, then: TokenCommand.run)
        case .proof: .synchronousFirst(ProofCommand.cached, then: ProofCommand.run)
        case .idToken: .synchronous(StoredTokenCommands.idToken)
        case .claims: .synchronous(StoredTokenCommands.claims)
        case .status: .synchronous(StatusCommand.run)
        case .refresh: .asynchronous(SessionCommands.refresh)
        case .logout: .asynchronous(SessionCommands.logout)
        case .verify: .asynchronous(VerifyCommand.run)
        case .discover: .asynchronous(DiscoverCommand.run)
        case .profiles: .synchronous(ProfilesCommand.run)
        case .fetch: .asynchronous(FetchCommand.run)
        case .credential: .asynchronous(CredentialCommand.run)
        case .exchange: .asynchronous(ExchangeCommand.run)
        case .config: .asynchronous(ConfigCommand.run)
        case .register: .asynchronous(RegisterCommand.run)
        case .completion: .synchronous(CompletionCommand.run)
        case .manual: .synchronous({ CompletionCommand.manual($0) })
        }
    }

    /// Runs the command named in `context` and returns its exit code.
    static func run(_ context: CommandContext) async throws -> Int32 {
        guard let command = context.arguments.command else { return 2 }
        switch runner(for: command.id) {
        case .synchronous(let run): return try run(context)
        case .synchronousFirst(let first, let then):
            if let code = try first(context) { return code }
            return try await then(context)
        case .asynchronous(let run): return try await run(context)
        }
    }

    /// Runs the command if it can finish without waiting; nil when it needs the async path.
    static func runSynchronously(_ context: CommandContext) throws -> Int32? {
        guard let command = context.arguments.command else { return nil }
        switch runner(for: command.id) {
        case .synchronous(let run): return try run(context)
        case .synchronousFirst(let first, _): return try first(context)
        case .asynchronous: return nil
        }
    }
}
