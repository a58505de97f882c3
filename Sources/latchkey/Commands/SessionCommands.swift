import Latchkey
import LatchkeyHTTP

/// `latchkey refresh` and `latchkey logout`: the two commands that change a signed-in profile
/// over the network.
enum SessionCommands {
    /// `refresh`: refreshes now; exit 3 (tokens cleared by the library) when the refresh token is
    /// rejected.
    static func refresh(_ context: CommandContext) async throws -> Int32 {
        let access = ProfileAccess(context)
        let settings = try access.requireSettings()
        let store = try access.tokenStore(settings)
        guard try store.load() != nil else { throw CommandFailure.notSignedIn(profile: access.profile) }
        let session = try access.session(settings, store: store)
        let stored: StoredSession
        do {
            stored = try await TerminationSignals.startWatching().run { try await session.refresh() }
        } catch {
            await ClockSkewNotice.show(session, context)
            throw error
        }
        await ClockSkewNotice.show(session, context)
        let until = stored.token.expiresAt.map { " until " + RFC3339.format($0) } ?? ""
        if context.globals.json {
            context.console.out(TokenCommand.render(stored.token, format: "json"))
        }
        context.console.info("Refreshed: access token valid\(until).\n")
        return 0
    }

    /// `logout`: revokes (unless `--no-revoke`), then deletes the token file even when revocation
    /// fails. The profile's settings stay, so `latchkey login` needs no options next time.
    static func logout(_ context: CommandContext) async throws -> Int32 {
        let access = ProfileAccess(context)
        guard let settings = try access.profiles.load(access.profile) else {
            // No settings: nothing can have been signed in through this tool; still remove a stray file.
            try await access.unlockedStore(nil).deleteUnderLock()
            context.console.info("Profile '\(access.profile)' was not signed in.\n")
            return 0
        }
        let revoke = !context.arguments.has(.noRevoke)
        let store = try access.tokenStore(settings)
        let session = try access.session(settings, store: store)
        // Read before the file is deleted: the provider's metadata and the ID token are in it.
        let endSession =
            context.arguments.has(.endSession) ? try EndSessionOutput.request(context, settings: settings, store: store) : nil
        let warnings = try await TerminationSignals.startWatching().run { try await session.logout(revoke: revoke) }
        if let endSession { EndSessionOutput.show(endSession, context) }
        for warning in warnings { context.console.warn(wording(warning)) }
        context.console.info(
            "Signed out of profile '\(access.profile)'; the local token file is deleted"
                + (revoke && warnings.isEmpty ? " and the tokens are revoked.\n" : ".\n"))
        return 0
    }

    /// A revocation failure with the option that fixes it.
    static func wording(_ failure: RevocationFailure) -> String {
        if case .noEndpoint = failure { return failure.description + " (pass --revocation-endpoint)" }
        return failure.description
    }
}
