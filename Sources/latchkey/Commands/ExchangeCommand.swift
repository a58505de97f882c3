import Latchkey
import LatchkeyHTTP
import LatchkeyJOSE

/// `latchkey exchange` (RFC 8693): a narrower token for one service, in exchange for the
/// profile's own token or one from a file (cli.md, "`exchange`"). The library sends and caches
/// (`Session.exchange`); this spells the options, reads the token files and words the refusals.
enum ExchangeCommand {
    static let formats = ["bare", "json", "header"]
    static let subjects = ["access", "refresh", "id"]
    static let shortTypes = ["access_token", "refresh_token", "id_token", "jwt"]

    static func run(_ context: CommandContext) async throws -> Int32 {
        let args = context.arguments
        let format = try args.choice(.format, formats, default: context.globals.json ? "json" : "bare")
        let plan = try parse(args)
        let margin = try TokenCommand.refreshMargin(args)
        let access = ProfileAccess(context)
        let settings = try access.requireSettings()
        let store = try access.tokenStore(settings)
        let session = try access.session(settings, store: store)
        var request = plan
        // Read at each use, never copied: the files' tokens live only in this request.
        if let path = args.string(.subjectTokenFile), let type = args.string(.subjectTokenType) {
            let urn = TokenExchange.tokenType(type)
            request.subject = .given(token: try readToken(path, option: .subjectTokenFile, type: urn), type: urn)
        }
        if let path = args.string(.actorTokenFile), let type = args.string(.actorTokenType) {
            let urn = TokenExchange.tokenType(type)
            request.actor = (token: try readToken(path, option: .actorTokenFile, type: urn), type: urn)
        }
        let issued: ExchangedToken
        let asked = request
        do {
            issued = try await TerminationSignals.startWatching().run {
                try await session.exchange(
                    asked, margin: TokenCommand.refreshMargin(margin, settings: settings), cache: !args.has(.noCache))
            }
        } catch {
            throw wording(error, request: request, profile: access.profile)
        }
        await ClockSkewNotice.show(session, context)
        context.console.out(try render(issued, format: format, profile: access.profile))
        return 0
    }

    /// The request the options describe, the token files not read yet; usage errors for options
    /// that do not go together.
    static func parse(_ args: ParsedArguments) throws -> TokenExchange {
        var request = TokenExchange(
            audiences: args.all(.audience), resources: args.all(.resource), scope: args.string(.scope),
            requestedTokenType: try requestedType(args.string(.requestedTokenType)))
        for resource in request.resources where !ResourceIndicator.isValid(resource) {
            throw UsageError("--resource must be an absolute URI without a fragment (RFC 8707), got '\(resource)'", command: .exchange)
        }
        for audience in request.audiences where audience.isEmpty || audience.contains(where: { $0.isNewline }) {
            throw UsageError("--audience must not be empty or span lines", command: .exchange)
        }
        try pair(args, .subjectTokenFile, .subjectTokenType)
        try pair(args, .actorTokenFile, .actorTokenType)
        if args.has(.subjectTokenFile) && args.has(.subject) {
            throw UsageError("--subject and --subject-token-file name two subjects: give one", command: .exchange)
        }
        switch try args.choice(.subject, subjects, default: "access") {
        case "refresh": request.subject = .refreshToken
        case "id": request.subject = .idToken
        default: request.subject = .accessToken
        }
        return request
    }

    /// `--requested-token-type`: a short name or a URN.
    static func requestedType(_ value: String?) throws(UsageError) -> String? {
        guard let value else { return nil }
        guard shortTypes.contains(value) || (value.contains(":") && !value.contains(where: { $0 == " " || $0.isNewline })) else {
            throw UsageError(
                "--requested-token-type must be access_token, refresh_token, id_token, jwt or a URN, got '\(value)'", command: .exchange)
        }
        return TokenExchange.tokenType(value)
    }

    /// A file option and its type option come together or not at all.
    static func pair(_ args: ParsedArguments, _ file: OptionKey, _ type: OptionKey) throws(UsageError) {
        if args.has(file) && !args.has(type) {
            throw UsageError("\(file.longName) needs \(type.longName) (its token type URN)", command: .exchange)
        }
        if args.has(type) && !args.has(file) { throw UsageError("\(type.longName) goes with \(file.longName)", command: .exchange) }
    }

    /// The token in `path`, by the token-file rule (cli.md): owner-only (else exit 9), one line,
    /// a JWT when `type` is one (jwt, id_token), else exit 2 naming the file.
    static func readToken(_ path: String, option: OptionKey, type: String) throws -> String {
        let jwt = type == TokenExchange.tokenType("jwt") || type == TokenExchange.tokenType("id_token")
        do { return try CredentialFileReader.read(path, as: jwt ? .jwt : .token) } catch {
            throw CredentialFileWording.failure(error, option: option, command: .exchange)
        }
    }

    /// The library's refusal in the contract's words: an `invalid_target` names what was asked for.
    static func wording(_ error: any Error, request: TokenExchange, profile: String) -> any Error {
        guard let error = error as? LatchkeyError else { return error }
        switch error {
        case .notSignedIn: return CommandFailure.notSignedIn(profile: profile)
        case .oauth(.server("invalid_target", let description, let status), _):
            let asked = request.audiences.map { "audience \($0)" } + request.resources.map { "resource \($0)" }
            let named = asked.isEmpty ? "the target" : asked.joined(separator: ", ")
            return CommandFailure(
                exitCode: 7, code: "invalid_target",
                message: "the server refused \(TerminalText.singleLine(named)) (invalid_target, HTTP \(status))"
                    + (description.map { ": " + TerminalText.singleLine($0) } ?? ""),
                hint: "ask for an audience or resource the provider's exchange policy allows")
        case .configuration(.missingSubjectToken(let kind)):
            return CommandFailure(
                exitCode: 2, code: "usage", message: "profile '\(profile)' holds no \(kind) to exchange",
                hint: kind == "refresh_token"
                    ? "sign in with offline_access for a refresh token, or use --subject access" : "use --subject access")
        default: return error
        }
    }

    /// The output for `format`, ending in a newline.
    static func render(_ token: ExchangedToken, format: String, profile: String) throws -> String {
        switch format {
        case "json":
            let object = JSONObject([
                ("token", .string(token.token)),
                ("issued_token_type", .string(token.issuedTokenType)),
                ("token_type", .string(token.tokenType)),
                ("expires_at", token.expiresAt.map { .string(RFC3339.format($0)) } ?? .null),
                ("scope", token.scope.map(JSONValue.string) ?? .null),
                ("audience", .array(token.audience.map(JSONValue.string)))
            ])
            return JSONValue.object(object).jsonText + "\n"
        case "header":
            guard token.tokenType == "Bearer" else {
                let what =
                    token.tokenType == "DPoP" ? "a DPoP-bound token, which a header alone would pass on as Bearer" : "not an access token"
                throw UsageError(
                    "the exchanged token is \(what)", command: .exchange,
                    hint: "use --format bare or json; `latchkey fetch --exchange-audience` sends a DPoP-bound one with its proof")
            }
            return "Authorization: Bearer \(token.token)\n"
        default:
            return token.token + "\n"
        }
    }
}

/// A session's exchanged token as a `TokenSource`, for `fetch --exchange-audience`: the cached
/// exchange, and a new one, replacing the cached entry, when the resource refuses it.
struct ExchangedTokenSource: TokenSource {
    let session: Session
    let request: TokenExchange
    let margin: RefreshMargin

    func token(replacing rejected: Token?) async throws(LatchkeyError) -> Token {
        let issued = try await session.exchange(request, margin: margin, replacing: rejected?.accessToken)
        return Token(accessToken: issued.token, tokenType: issued.tokenType, expiresAt: issued.expiresAt, scope: issued.scope)
    }

    var dpopProofs: (any DPoPProofSource)? { session.dpopProofs }
}

/// How the CLI words a `CredentialFileError` (subject, actor and assertion files): the key-file
/// refusals are exit 9 as a key file's are; the rest exit 2, naming the option and the file.
enum CredentialFileWording {
    static func failure(_ error: CredentialFileError, option: OptionKey, command: CommandName) -> any Error {
        switch error {
        case .refused(let store):
            let reason: String
            switch store {
            case .unsafePermissions(_, let why): reason = why
            case .wrongOwner(_, let owner, let expected): reason = "owned by uid \(owner), expected uid \(expected)"
            case .tooLarge(_, let size, let limit): reason = "\(size) bytes, more than the \(limit)-byte limit"
            default: reason = store.description
            }
            return CommandFailure(
                exitCode: 9, code: "storage_error", message: "refusing \(option.longName) \(error.path): \(reason)",
                hint: "it holds a bearer token: it must be yours and readable by you alone (chown it to you, chmod 600)")
        case .unreadable(let path, let code):
            return UsageError("cannot read \(option.longName) \(path): \(ErrnoText.describe(code))", command: command)
        default:
            return UsageError("\(option.longName) \(error.description)", command: command)
        }
    }
}
