import Latchkey
import LatchkeyCrypto
import LatchkeyHTTP
import LatchkeyJOSE

/// `latchkey token`: prints a valid access token. The hot path — a cached token that is still
/// valid for `--min-ttl` — reads two small files and prints; only a refresh builds the network
/// stack.
enum TokenCommand {
    static let formats = ["bare", "header", "json", "exec-credential"]

    /// The hot path: prints the cached token when it is valid for `--min-ttl` and no refresh is
    /// forced; nil when a refresh is needed. Reads two small files, no network, no threads.
    static func cached(_ context: CommandContext) throws -> Int32? {
        let args = context.arguments
        let format = try args.choice(.format, formats, default: context.globals.json ? "json" : "bare")
        let givenMargin = try refreshMargin(args)
        let target = try ProofTarget.optional(args, command: .token)
        let access = ProfileAccess(context)
        let settings = try access.requireSettings()
        let margin = refreshMargin(givenMargin, settings: settings)
        // A forced refresh reads the file under the lock only.
        if args.has(.forceRefresh) { return nil }
        let store = try access.tokenStore(settings)
        // The whole session, not only the token: a DPoP-bound one signs its proof from the file alone.
        let now = Timestamp.now()
        let cached: StoredSession?
        do { cached = try store.cachedSession(margin: margin, at: now) } catch {
            if case .notSignedIn = error { throw CommandFailure.notSignedIn(profile: access.profile) }
            throw error
        }
        guard let session = cached else { return nil }
        noteOverrun(margin, session, context)
        context.console.out(try output(session, format: format, target: target, now: now))
        return 0
    }

    /// What `token` prints for `session`: for a DPoP-bound token in `--format header`, the two
    /// lines `Authorization: DPoP …` and `DPoP: <proof>` for `target` (which must be given).
    static func output(_ session: StoredSession, format: String, target: ProofTarget?, now: Timestamp) throws -> String {
        let token = try printable(session.token)
        guard TokenBinding.isDPoP(token) else { return render(token, format: format) }
        // A DPoP-bound token is useless without its proof, and replayable where the binding is not
        // checked: outputs that can only carry a Bearer token refuse it.
        if format == "exec-credential" || (format == "header" && target == nil) {
            throw bearerOnlyRefusal(format: format, profile: session.profile)
        }
        guard format == "header", let target else { return render(token, format: format) }
        let proof = try session.dpopProof(method: target.method, url: target.url, at: now, random: try ProofTarget.random())
        return render(token, format: format) + "DPoP: " + proof + "\n"
    }

    /// `--min-ttl` as given, nil when absent; checked before anything else is read, so a bad value
    /// is a usage error whatever the profile's state.
    static func refreshMargin(_ args: ParsedArguments) throws(UsageError) -> RefreshMargin? {
        guard args.has(.minTTL) else { return nil }
        return .seconds(Double(try args.nonNegativeInteger(.minTTL, default: 60)))
    }

    /// The margin to use: `--min-ttl`, else the profile's `config set min-ttl` (used as given), else
    /// the standard margin (60 s, or half the lifetime of a token that lives less).
    static func refreshMargin(_ given: RefreshMargin?, settings: ProfileSettings) -> RefreshMargin {
        given ?? settings.minTTL.map { .profileDefault(Double($0)) } ?? .standard
    }

    /// Says once, on stderr, that the profile's min-ttl is not used because it is not less than the
    /// token's lifetime (it would make every call refresh).
    static func noteOverrun(_ margin: RefreshMargin, _ session: StoredSession, _ context: CommandContext) {
        guard margin.overrunsLifetime(of: session), case .profileDefault(let seconds) = margin else { return }
        let lifetime = session.token.expiresAt.map { Int($0.timeIntervalSince(session.updatedAt)) } ?? 0
        context.console.warn(
            "the profile's min-ttl (\(Int(seconds)) s) is not less than the token's lifetime (\(lifetime) s), "
                + "so every call would refresh: using the default margin (`latchkey config set min-ttl N` to change it)")
    }

    /// The exit-2 refusal of a Bearer-only `format` for a DPoP-bound session, naming both fixes.
    static func bearerOnlyRefusal(format: String, profile: String) -> CommandFailure {
        let what = format == "header" ? "--format header without --method and --url" : "--format \(format)"
        return CommandFailure(
            exitCode: 2, code: "usage",
            message: "profile '\(profile)' holds a DPoP-bound token, which \(what) would pass on as a Bearer token",
            hint: "for a Bearer profile run \(bearerLogin(profile: profile)); for this one, "
                + "`latchkey token --format header --method M --url URL` prints the Authorization and DPoP lines of one request")
    }

    /// The command that makes `profile` a Bearer profile, ready to paste.
    static func bearerLogin(profile: String) -> String {
        profile == "default" ? "`latchkey login --dpop never`" : "`latchkey --profile \(profile) login --dpop never`"
    }

    /// Refreshes (single-flight across processes, in the library) and prints the new token.
    static func run(_ context: CommandContext) async throws -> Int32 {
        let args = context.arguments
        let format = try args.choice(.format, formats, default: context.globals.json ? "json" : "bare")
        let givenMargin = try refreshMargin(args)
        let force = args.has(.forceRefresh)
        let target = try ProofTarget.optional(args, command: .token)
        let access = ProfileAccess(context)
        let settings = try access.requireSettings()
        let margin = refreshMargin(givenMargin, settings: settings)
        let store = try access.tokenStore(settings)
        let session = try access.session(settings, store: store)
        let stored: StoredSession
        do {
            stored = try await TerminationSignals.startWatching().run {
                try await session.validSession(margin: margin, forceRefresh: force)
            }
        } catch {
            await ClockSkewNotice.show(session, context)
            if case .notSignedIn? = error as? LatchkeyError { throw CommandFailure.notSignedIn(profile: access.profile) }
            throw error
        }
        await ClockSkewNotice.show(session, context)
        noteOverrun(margin, stored, context)
        context.console.out(try output(stored, format: format, target: target, now: Timestamp.now()))
        return 0
    }

    /// `token` when it is safe to print, else exit 7. The library already refuses such tokens from a
    /// server (`TokenResponse.parse`); this also covers a file saved before that check, or by another
    /// program using the library: an access token with CR LF would print as extra header lines, one
    /// with ESC would drive the terminal, and the type is printed verbatim in `--format header`.
    static func printable(_ token: Token) throws -> Token {
        guard !token.accessToken.isEmpty, TokenCharacters.areVSCHAR(token.accessToken),
            token.tokenType == "Bearer" || token.tokenType == "DPoP"
        else {
            // The message never quotes the token: it is a secret, and it is what cannot be printed.
            throw CommandFailure(
                exitCode: 7, code: "protocol_violation",
                message: "the stored access token is not a valid OAuth token (RFC 6749 VSCHAR, type Bearer or DPoP); not printing it",
                hint: "run `latchkey login` to get a new one")
        }
        return token
    }

    /// The output for `format`, ending in a newline.
    static func render(_ token: Token, format: String) -> String {
        switch format {
        case "header":
            return "Authorization: \(token.tokenType) \(token.accessToken)\n"
        case "json":
            let object = JSONObject([
                ("access_token", .string(token.accessToken)),
                ("token_type", .string(token.tokenType)),
                ("expires_at", token.expiresAt.map { .string(RFC3339.format($0)) } ?? .null),
                ("scope", token.scope.map(JSONValue.string) ?? .null)
            ])
            return JSONValue.object(object).jsonText + "\n"
        case "exec-credential":
            var status = JSONObject([("token", .string(token.accessToken))])
            if let expiresAt = token.expiresAt { status["expirationTimestamp"] = .string(RFC3339.format(expiresAt)) }
            let object = JSONObject([
                ("apiVersion", .string("client.authentication.k8s.io/v1")),
                ("kind", .string("ExecCredential")),
                ("status", .object(status))
            ])
            return JSONValue.object(object).jsonText + "\n"
        default:
            return token.accessToken + "\n"
        }
    }
}
