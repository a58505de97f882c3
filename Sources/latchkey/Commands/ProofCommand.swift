import Latchkey
import LatchkeyHTTP

/// `latchkey proof --method M --url URL`: a DPoP proof (RFC 9449) for one request with the current
/// access token, for tools that send the request themselves. Exit 3 when not signed in, 2 when the
/// session is not DPoP-bound. With a valid cached token it reads the files and signs; no network.
enum ProofCommand {
    /// The proof from the cached session; nil when the token must be refreshed first.
    static func cached(_ context: CommandContext) throws -> Int32? {
        let p = try Preamble(context)
        let now = Timestamp.now()
        let cached: StoredSession?
        do { cached = try p.store.cachedSession(margin: p.margin, at: now) } catch {
            if case .notSignedIn = error { throw CommandFailure.notSignedIn(profile: p.access.profile) }
            throw error
        }
        // A session that needs a refresh first is checked for its binding after it (`run`).
        guard let session = cached else { return nil }
        try requireBound(session, profile: p.access.profile)
        context.console.outLine(
            try session.dpopProof(
                method: p.target.method, url: p.target.url, at: now,
                random: try ProofTarget.random()))
        return 0
    }

    /// Refreshes, then prints the proof for the new token.
    static func run(_ context: CommandContext) async throws -> Int32 {
        let p = try Preamble(context)
        let session = try p.access.session(p.settings, store: p.store)
        let margin = p.margin
        _ = try await TerminationSignals.startWatching().run { try await session.validToken(margin: margin) }
        guard let stored = try await session.storedSession() else { throw CommandFailure.notSignedIn(profile: p.access.profile) }
        try requireBound(stored, profile: p.access.profile)
        context.console.outLine(
            try stored.dpopProof(
                method: p.target.method, url: p.target.url, at: Timestamp.now(),
                random: try ProofTarget.random()))
        return 0
    }

    /// What both paths read first: the request the proof is for, `--min-ttl`, the profile and its store.
    private struct Preamble {
        let target: ProofTarget
        let margin: RefreshMargin
        let access: ProfileAccess
        let settings: ProfileSettings
        let store: EncryptedFileTokenStore

        init(_ context: CommandContext) throws {
            target = try ProofTarget.required(context.arguments, command: .proof)
            let given = try TokenCommand.refreshMargin(context.arguments)
            access = ProfileAccess(context)
            settings = try access.requireSettings()
            margin = TokenCommand.refreshMargin(given, settings: settings)
            store = try access.tokenStore(settings)
        }
    }

    static func requireBound(_ session: StoredSession, profile: String) throws {
        guard TokenBinding(session.token) == .dpop, session.dpop != nil else {
            throw CommandFailure(
                exitCode: 2, code: "not_dpop_bound",
                message: "profile '\(profile)' is not DPoP-bound: its access token is a bearer token",
                hint: "sign in with `latchkey login --dpop always` to bind the tokens to a key")
        }
    }
}
