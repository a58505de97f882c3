import Glibc
import Latchkey
import LatchkeyHTTP
import LatchkeyJOSE

/// `latchkey fetch [OPTIONS] URL`: one authenticated request (like `gh api`), so a script needs no
/// second process per call and DPoP works at all (the proof depends on the request). Built on
/// `AuthorizedTransport`: the token goes only to the URL's origin, one refresh on `invalid_token`,
/// one retry on `use_dpop_nonce`, same-origin redirects only. Exit 10 for a final status ≥ 400.
/// The body streams to stdout or `--output` as it arrives (`HTTPTransport.send(_:bodySink:)`):
/// memory stays bounded whatever its size, while the parser still enforces `maxBodyBytes`.
enum FetchCommand {
    /// How large a response body `fetch` accepts (the HTTP stack's `maxBodyBytes` for this command,
    /// counted as it streams, never held); the same bound applies to a `--data` body.
    static let maxBodyBytes = 64 * 1024 * 1024
    /// At most this many same-origin redirects are followed.
    static let maxRedirects = 3
    /// Headers the token and proof own: setting them with `-H` is a usage error.
    static let reservedHeaders = ["authorization", "dpop"]
    /// Headers the HTTP stack sets itself (it drops callers' copies): refused rather than ignored.
    static let transportHeaders = [
        "host", "connection", "content-length", "transfer-encoding", "accept-encoding", "te",
        "upgrade", "keep-alive", "proxy-connection", "expect"
    ]

    /// What the command line asks for.
    struct Plan {
        var request: HTTPRequest
        var include: Bool
        var output: String?
        /// `--exchange-audience`/`-resource`/`-scope`: the request goes with such an exchanged token.
        var exchange: TokenExchange? = nil
    }

    static func run(_ context: CommandContext) async throws -> Int32 {
        let plan = try parse(context.arguments)
        let args = context.arguments
        let access = ProfileAccess(context)
        let settings = try access.profiles.load(access.profile)
        let signIn = args.has(.signIn)
        let flow = try signInFlow(args, remembered: settings?.signInFlow)
        // Checked before anything is sent: a sign-in the resource asks for must have a client.
        if signIn, (args.string(.clientID) ?? settings?.client.clientID ?? "").isEmpty {
            throw UsageError(
                "--sign-in needs a client: the profile remembers none", command: .fetch,
                hint: "pass --client-id ID (the client registered at the issuer the resource names)")
        }
        let base = access.transport(limits: HTTPResponseParser.Limits(maxBodyBytes: maxBodyBytes), settings: settings)
        let file = try plan.output.map { try OutputFile(stagingFor: $0) }
        defer { file?.discard() }
        let sink: any HTTPBodySink = file ?? StandardOutput()
        var attempt = try await send(plan, context: context, base: base, sink: sink)
        var signedIn = false
        var steppedUp = false
        while true {
            switch try await decide(attempt, url: plan.request.url, base: base, profile: access.profile) {
            case .final:
                break
            case .stepUp(let requirement):
                guard !steppedUp else {
                    if !context.console.quiet {
                        context.console.error("latchkey: the resource asked for a stronger sign-in again after the step-up\n")
                    }
                    break
                }
                guard signIn else { throw stepUpRequired(requirement, context: context, url: plan.request.url) }
                _ = try await LoginCommand.perform(
                    loginContext(context, flow: flow), authentication: requirement.authentication)
                steppedUp = true
                attempt = try await send(plan, context: context, base: base, sink: sink)
                continue
            case .signInAt(let metadata):
                guard signIn, !signedIn, attempt.issuer == nil else {
                    throw try signInHint(metadata, context: context, url: plan.request.url, signedInAt: attempt.issuer)
                }
                let target = try await ResourceSignIn.target(
                    metadata, preferred: args.string(.issuer), transport: base, command: .fetch)
                _ = try await LoginCommand.perform(
                    ResourceSignIn.applying(target, to: loginContext(context, flow: flow)), authentication: AuthenticationRequirement())
                signedIn = true
                attempt = try await send(plan, context: context, base: base, sink: sink)
                continue
            }
            break
        }
        let response = attempt.response
        // A 401 was held back (it might have been answered by a sign-in): it is the final answer now.
        if attempt.held {
            if plan.include { try sink.write(Array(Self.head(response).utf8)[...]) }
            try sink.write(response.body[...])
        }
        try file?.commit()
        if RedirectStatus.isFollowed(response.status), let location = response.header("Location") {
            let target = (try? response.url.resolving(location))?.origin ?? location
            let why = target == response.url.origin ? "more than \(maxRedirects) redirects" : "another origin"
            context.console.warn("not following the \(response.status) redirect to \(target) (\(why)); the access token is not sent there")
        }
        guard response.status >= 400 else { return 0 }
        // One line for cron logs and journals: the status and where (query secrets redacted, server
        // text made terminal-safe), never the body, which stdout or --output already has.
        if !context.console.quiet {
            let url = TerminalText.singleLine(HTTPRedaction.redact(url: response.url.absoluteString))
            context.console.error("latchkey: HTTP \(response.status) from \(url)\n")
        }
        return 10
    }

    /// One sending of the request and what came of it.
    struct Attempt {
        var response: HTTPResponse
        /// The issuer of the session whose token went with it; nil: sent without a token.
        var issuer: String?
        /// The body was held back (a 401), not written to the output.
        var held: Bool
    }

    /// What the answer asks for.
    enum Decision {
        /// It is the answer.
        case final
        /// A step-up (RFC 9470) of the session whose token was refused.
        case stepUp(StepUpRequirement)
        /// A sign-in at an issuer the resource's metadata names.
        case signInAt(ProtectedResourceMetadata)
    }

    /// Sends the request: with the profile's token when it is signed in, without one otherwise.
    /// Every decision is made on the head: a 401 is held back, so only the final answer reaches
    /// the output.
    static func send(_ plan: Plan, context: CommandContext, base: any HTTPTransport, sink: any HTTPBodySink) async throws -> Attempt {
        let access = ProfileAccess(context)
        let include = plan.include
        let request = plan.request
        let chooser: HTTPBodySinkChooser = { head in
            if head.status == 401 { return nil }
            if include { try sink.write(Array(Self.head(head).utf8)[...]) }
            return sink
        }
        if let settings = try access.profiles.load(access.profile) {
            let store = try access.tokenStore(settings)
            let session = try access.session(settings, store: store)
            let source: any TokenSource =
                plan.exchange.map {
                    ExchangedTokenSource(session: session, request: $0, margin: TokenCommand.refreshMargin(nil, settings: settings))
                } ?? session
            let transport = AuthorizedTransport(base: base, source: source, allowed: [request.url])
            do {
                let response = try await TerminationSignals.startWatching().run {
                    try await transport.send(request, bodySink: chooser)
                }
                return Attempt(response: response, issuer: settings.client.issuer, held: response.status == 401)
            } catch LatchkeyError.notSignedIn {
                // No token read, nothing sent: the request goes without one below.
            }
        }
        let response = try await TerminationSignals.startWatching().run { try await base.send(request, bodySink: chooser) }
        return Attempt(response: response, issuer: nil, held: response.status == 401)
    }

    /// What `attempt`'s answer asks for. A session's 401 leads to metadata only when its challenge
    /// names it (`resource_metadata`); an answer to a request without a token is also looked up at
    /// the well-known location. Metadata that cannot be trusted is exit 7 (the library's checks).
    static func decide(_ attempt: Attempt, url: HTTPURL, base: any HTTPTransport, profile: String) async throws -> Decision {
        let response = attempt.response
        guard response.status == 401 else { return .final }
        if let issuer = attempt.issuer {
            if let stepUp = AuthorizedTransport.stepUp(in: response) { return .stepUp(stepUp) }
            guard let location = ResourceChallenge(wwwAuthenticate: response.header("WWW-Authenticate"))?.resourceMetadata else {
                return .final
            }
            let metadata = try await ProtectedResourceDiscovery.challengedMetadata(location, for: url, transport: base)
            // Signed in where the resource trusts: the refusal is the answer (exit 10).
            if metadata.authorizationServers.contains(where: { IssuerName.sameIssuer($0, issuer) }) { return .final }
            return .signInAt(metadata)
        }
        guard let metadata = try await ProtectedResourceDiscovery.metadata(after: response, for: url, transport: base) else {
            throw CommandFailure.notSignedIn(profile: profile)
        }
        return .signInAt(metadata)
    }

    /// The flows that sign a person in (what `--sign-in` can run).
    static let personFlows: [LoginFlow] = [.device, .browser, .paste, .ciba]

    /// The flow for `--sign-in`: `--flow`, else the one the profile last signed a person in with
    /// (cli.md: "the profile's flow"), else the device flow.
    static func signInFlow(_ args: ParsedArguments, remembered: String?) throws -> LoginFlow {
        let fallback = remembered.flatMap(LoginFlow.init(rawValue:)).flatMap { personFlows.contains($0) ? $0 : nil } ?? .device
        return LoginFlow(rawValue: try args.choice(.flow, personFlows.map(\.rawValue), default: fallback.rawValue))!
    }

    /// The context a sign-in runs in: the fetch's options (client, secrets, timeout) as login's,
    /// its events on stderr (stdout is the response's).
    static func loginContext(_ context: CommandContext, flow: LoginFlow) -> CommandContext {
        var args = context.arguments
        args.record(.flow, flow.rawValue, order: 2_000_000)
        return CommandContext(
            arguments: args, globals: context.globals, environment: context.environment, console: context.console.dataOnStderr)
    }

    /// The exit-3 answer to a resource that trusts another issuer than the profile's (or the
    /// profile is not signed in): which issuer it trusts, and the login to run.
    static func signInHint(_ metadata: ProtectedResourceMetadata, context: CommandContext, url: HTTPURL, signedInAt: String?) throws
        -> CommandFailure
    {
        let profile = context.globals.profile
        let resource = TerminalText.singleLine(metadata.resource)
        let trusted = metadata.authorizationServers.isEmpty ? "no issuer" : ResourceSignIn.list(metadata.authorizationServers)
        let prefix = profile == "default" ? "latchkey" : "latchkey --profile \(profile)"
        let remembered = (try? ProfileAccess(context).profiles.load(profile))??.client.clientID
        let clientID = TerminalText.singleLine(context.arguments.string(.clientID) ?? remembered ?? "ID")
        let target = TerminalText.singleLine(url.withoutQueryAndFragment)
        if let signedInAt {
            return CommandFailure(
                exitCode: 3, code: "not_signed_in",
                message:
                    "the resource \(resource) trusts \(trusted), not \(TerminalText.singleLine(signedInAt)) where profile '\(profile)' is signed in",
                hint: "use another profile: `latchkey --profile NAME login --resource-url \(target) --client-id \(clientID)`")
        }
        let several = metadata.authorizationServers.count > 1 ? " --issuer URL" : ""
        return CommandFailure(
            exitCode: 3, code: "not_signed_in",
            message: "profile '\(profile)' is not signed in; the resource \(resource) trusts \(trusted)",
            hint: "run `\(prefix) login --resource-url \(target)\(several) --client-id \(clientID)`, or fetch with --sign-in")
    }

    /// The exit-3 answer to a step-up challenge without `--sign-in`: the `step_up_required` event
    /// (with `--json`), and the line saying what the resource asks.
    static func stepUpRequired(_ requirement: StepUpRequirement, context: CommandContext, url: HTTPURL) -> CommandFailure {
        if context.globals.json {
            var event = JSONObject([("event", .string("step_up_required"))])
            if let acr = requirement.acrValues { event["acr_values"] = .string(acr.joined(separator: " ")) }
            if let age = requirement.maxAge { event["max_age"] = .number(String(age)) }
            context.console.outLine(JSONValue.object(event).jsonText)
        }
        var asks: [String] = []
        var options: [String] = []
        if let acr = requirement.acrValues {
            asks.append("acr_values \"\(acr.joined(separator: " "))\"")
            options.append("--acr-values '\(acr.joined(separator: " "))'")
        }
        if let age = requirement.maxAge {
            asks.append("max_age \(age) s")
            options.append("--max-age \(age)")
        }
        let what = asks.isEmpty ? "a stronger sign-in" : "a stronger sign-in: " + asks.joined(separator: ", ")
        let target = TerminalText.singleLine(url.withoutQueryAndFragment)
        return CommandFailure(
            exitCode: 3, code: "step_up_required", message: "the resource asks for \(what)",
            hint: "run `latchkey fetch --sign-in \(target)`, or `latchkey login \(options.joined(separator: " "))`")
    }

    /// The request from the options; usage errors for anything malformed or reserved.
    static func parse(_ args: ParsedArguments) throws -> Plan {
        guard let text = args.positionals.first else {
            throw UsageError("fetch needs a URL", command: .fetch)
        }
        let url: HTTPURL
        do { url = try HTTPURL.parse(text) } catch {
            throw UsageError("the URL must be https (http only to loopback): \(error)", command: .fetch)
        }
        var headers: [(name: String, value: String)] = []
        for line in args.all(.header) { headers.append(try header(line)) }
        var body: [UInt8] = []
        let hasData = args.has(.data)
        if let data = args.string(.data) { body = try readData(data) }
        if hasData, !headers.contains(where: { $0.name.lowercased() == "content-type" }) {
            headers.append(("Content-Type", "application/x-www-form-urlencoded"))  // as curl --data does
        }
        let method = args.string(.request) ?? (hasData ? "POST" : "GET")
        // Sent as given in the request line and a DPoP proof's `htm` alike (methods are case-sensitive).
        guard HTTPRequest.isValidMethod(method) else {
            throw UsageError(
                "-X must be an HTTP method such as GET or POST, got '\(method)'", command: .fetch,
                hint: "a method is a token of letters, digits and !#$%&'*+-.^_`|~, sent exactly as given (case matters)")
        }
        let request = HTTPRequest(method: method, url: url, headers: headers, body: body, maxRedirects: maxRedirects)
        var plan = Plan(request: request, include: args.has(.include), output: args.string(.output))
        let audiences = args.all(.exchangeAudience), resources = args.all(.exchangeResource)
        if !audiences.isEmpty || !resources.isEmpty {
            for resource in resources where !ResourceIndicator.isValid(resource) {
                throw UsageError(
                    "--exchange-resource must be an absolute URI without a fragment (RFC 8707), got '\(resource)'", command: .fetch)
            }
            plan.exchange = TokenExchange(audiences: audiences, resources: resources, scope: args.string(.exchangeScope))
        } else if args.has(.exchangeScope) {
            throw UsageError("--exchange-scope goes with --exchange-audience or --exchange-resource", command: .fetch)
        }
        return plan
    }

    /// One `-H 'Name: value'`.
    static func header(_ line: String) throws -> (name: String, value: String) {
        guard let colon = line.firstIndex(of: ":") else {
            throw UsageError("-H needs 'Name: value', got '\(line)'", command: .fetch)
        }
        let name = String(line[..<colon])
        var value = Substring(line[line.index(after: colon)...])
        while value.first == " " || value.first == "\t" { value = value.dropFirst() }
        while value.last == " " || value.last == "\t" { value = value.dropLast() }
        guard isToken(name) else { throw UsageError("-H: '\(name)' is not a header name", command: .fetch) }
        guard value.utf8.allSatisfy(CharacterClass.isFieldText) else {
            throw UsageError("-H \(name): the value holds control characters", command: .fetch)
        }
        guard !reservedHeaders.contains(name.lowercased()) else {
            throw UsageError(
                "-H cannot set \(name): latchkey sets Authorization and DPoP from the profile's token",
                command: .fetch, hint: "use curl for a request with other credentials")
        }
        guard !transportHeaders.contains(name.lowercased()) else {
            throw UsageError(
                "-H cannot set \(name): the HTTP stack sets it (one request, identity encoding, close)",
                command: .fetch)
        }
        return (name, String(value))
    }

    /// `--data STRING|@FILE|@-`.
    static func readData(_ data: String) throws -> [UInt8] {
        guard data.hasPrefix("@") else { return Array(data.utf8) }
        let path = String(data.dropFirst())
        let bytes = path == "-" ? SmallFile.readAll(fd: 0, limit: maxBodyBytes) : SmallFile.read(path, limit: maxBodyBytes)
        guard let bytes else {
            throw UsageError(
                "--data @\(path): cannot read it (\(ErrnoText.describe(errno))); the limit is \(maxBodyBytes) bytes",
                command: .fetch)
        }
        return bytes
    }

    /// The status line and headers (`--include`), terminal-safe: they come from the server.
    static func head(_ response: HTTPResponse) -> String {
        var text = "HTTP/1.1 \(response.status)\r\n"
        for (name, value) in response.headers {
            text += TerminalText.singleLine(name) + ": " + TerminalText.singleLine(value) + "\r\n"
        }
        return text + "\r\n"
    }

    /// RFC 9110 §5.6.2 token (method and header names).
    static func isToken(_ text: String) -> Bool { HeaderName.isToken(text) }
}
