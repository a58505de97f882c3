/// Sends a parsed command line to the command that implements it.
enum CommandDispatch {
    /// Runs the command named in `context` and returns its exit code.
    static func run(_ context: CommandContext) async throws -> Int32 {
        guard let command = context.arguments.command else { return 2 }
        if let code = try runSynchronously(context) { return code }
        switch command.name {
        case "token": return try await TokenCommand.run(context)
        case "proof": return try await ProofCommand.run(context)
        case "login": return try await LoginCommand.run(context)
        case "refresh": return try await SessionCommands.refresh(context)
        case "logout": return try await SessionCommands.logout(context)
        case "verify": return try await VerifyCommand.run(context)
        case "discover": return try await DiscoverCommand.run(context)
        case "credential": return try await CredentialCommand.run(context)
        case "fetch": return try await FetchCommand.run(context)
        case "config": return try await ConfigCommand.run(context)
        case "register": return try await RegisterCommand.run(context)
        default: throw UsageError("unknown command '\(command.name)'")
        }
    }

    /// Runs the command if it can finish without waiting; nil when it needs the async path.
    static func runSynchronously(_ context: CommandContext) throws -> Int32? {
        switch context.arguments.command?.name {
        case "token": return try TokenCommand.cached(context)
        case "proof": return try ProofCommand.cached(context)
        case "id-token": return try StoredTokenCommands.idToken(context)
        case "claims": return try StoredTokenCommands.claims(context)
        case "status": return try StatusCommand.run(context)
        case "profiles": return try ProfilesCommand.run(context)
        case "completion": return try CompletionCommand.run(context)
        case "manual": return CompletionCommand.manual(context)
        default: return nil
        }
    }
}
