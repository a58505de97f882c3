import LatchkeyHTTP
import Latchkey

/// `latchkey proof --method M --url URL`: a DPoP proof (RFC 9449) for one request with the current
/// access token, for tools that send the request themselves. Exit 3 when not signed in, 2 when the
/// session is not DPoP-bound. With a valid cached token it reads the files and signs; no network.
enum ProofCommand {
    /// The proof from the cached session; nil when the token must be refreshed first.
    static func cached(_ context: CommandContext) throws -> Int32? {
        let args = context.arguments
        let target = try ProofTarget.required(args, command: "proof")
        let minTTL = Double(try args.nonNegativeInteger("min-ttl", default: 60))
        let access = ProfileAccess(context)
        let settings = try access.requireSettings()
        let store = try access.tokenStore(settings)
        guard let session = try store.loadTyped() else { throw CommandFailure.notSignedIn(profile: access.profile) }
        try requireBound(session, profile: access.profile)
        let now = Timestamp.now()
        guard session.token.isValid(at: now, minTTL: minTTL) else { return nil }
        context.console.outLine(try session.dpopProof(method: target.method, url: target.url, at: now, random: try ProofTarget.random()))
        return 0
    }

    /// Refreshes, then prints the proof for the new token.
    static func run(_ context: CommandContext) async throws -> Int32 {
        let args = context.arguments
        let target = try ProofTarget.required(args, command: "proof")
        let minTTL = Double(try args.nonNegativeInteger("min-ttl", default: 60))
        let access = ProfileAccess(context)
        let settings = try access.requireSettings()
        let store = try access.tokenStore(settings)
        let session = try access.session(settings, store: store)
        _ = try await TerminationSignals.startWatching().run { try await session.validToken(minTTL: minTTL) }
        guard let stored = try await session.storedSession() else { throw CommandFailure.notSignedIn(profile: access.profile) }
        try requireBound(stored, profile: access.profile)
        context.console.outLine(try stored.dpopProof(method: target.method, url: target.url, at: Timestamp.now(),
                                                     random: try ProofTarget.random()))
        return 0
    }

    static func requireBound(_ session: StoredSession, profile: String) throws {
        guard TokenBinding(session.token) == .dpop, session.dpop != nil else {
            throw CommandFailure(exitCode: 2, code: "not_dpop_bound",
                                 message: "profile '\(profile)' is not DPoP-bound: its access token is a bearer token",
                                 hint: "sign in with `latchkey login --dpop always` to bind the tokens to a key")
        }
    }
}
