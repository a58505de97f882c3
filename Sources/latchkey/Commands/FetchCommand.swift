import Glibc
import Latchkey
import LatchkeyHTTP

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
        let access = ProfileAccess(context)
        let settings = try access.requireSettings()
        let store = try access.tokenStore(settings)
        let session = try access.session(settings, store: store)
        let base = access.transport(limits: HTTPResponseParser.Limits(maxBodyBytes: maxBodyBytes), settings: settings)
        let source: any TokenSource =
            plan.exchange.map {
                ExchangedTokenSource(session: session, request: $0, margin: TokenCommand.refreshMargin(nil, settings: settings))
            } ?? session
        let transport = AuthorizedTransport(base: base, source: source, allowed: [plan.request.url])
        let request = plan.request
        let file = try plan.output.map { try OutputFile(stagingFor: $0) }
        defer { file?.discard() }
        let sink: any HTTPBodySink = file ?? StandardOutput()
        let include = plan.include
        let response = try await TerminationSignals.startWatching().run {
            // Chosen on the final answer's head only: a 401 that is retried or a redirect that is
            // followed never reaches the output.
            try await transport.send(request) { head in
                if include { try sink.write(Array(Self.head(head).utf8)[...]) }
                return sink
            }
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

    /// The request from the options; usage errors for anything malformed or reserved.
    static func parse(_ args: ParsedArguments) throws -> Plan {
        guard let text = args.positionals.first else {
            throw UsageError("fetch needs a URL", command: "fetch")
        }
        let url: HTTPURL
        do { url = try HTTPURL.parse(text) } catch {
            throw UsageError("the URL must be https (http only to loopback): \(error)", command: "fetch")
        }
        var headers: [(name: String, value: String)] = []
        for line in args.all("header") { headers.append(try header(line)) }
        var body: [UInt8] = []
        let hasData = args.has("data")
        if let data = args.string("data") { body = try readData(data) }
        if hasData, !headers.contains(where: { $0.name.lowercased() == "content-type" }) {
            headers.append(("Content-Type", "application/x-www-form-urlencoded"))  // as curl --data does
        }
        let method = args.string("request") ?? (hasData ? "POST" : "GET")
        // Sent as given in the request line and a DPoP proof's `htm` alike (methods are case-sensitive).
        guard HTTPRequest.isValidMethod(method) else {
            throw UsageError(
                "-X must be an HTTP method such as GET or POST, got '\(method)'", command: "fetch",
                hint: "a method is a token of letters, digits and !#$%&'*+-.^_`|~, sent exactly as given (case matters)")
        }
        let request = HTTPRequest(method: method, url: url, headers: headers, body: body, maxRedirects: maxRedirects)
        var plan = Plan(request: request, include: args.has("include"), output: args.string("output"))
        let audiences = args.all("exchange-audience"), resources = args.all("exchange-resource")
        if !audiences.isEmpty || !resources.isEmpty {
            for resource in resources where !ResourceIndicator.isValid(resource) {
                throw UsageError(
                    "--exchange-resource must be an absolute URI without a fragment (RFC 8707), got '\(resource)'", command: "fetch")
            }
            plan.exchange = TokenExchange(audiences: audiences, resources: resources, scope: args.string("exchange-scope"))
        } else if args.has("exchange-scope") {
            throw UsageError("--exchange-scope goes with --exchange-audience or --exchange-resource", command: "fetch")
        }
        return plan
    }

    /// One `-H 'Name: value'`.
    static func header(_ line: String) throws -> (name: String, value: String) {
        guard let colon = line.firstIndex(of: ":") else {
            throw UsageError("-H needs 'Name: value', got '\(line)'", command: "fetch")
        }
        let name = String(line[..<colon])
        var value = Substring(line[line.index(after: colon)...])
        while value.first == " " || value.first == "\t" { value = value.dropFirst() }
        while value.last == " " || value.last == "\t" { value = value.dropLast() }
        guard isToken(name) else { throw UsageError("-H: '\(name)' is not a header name", command: "fetch") }
        guard value.unicodeScalars.allSatisfy({ $0 == "\t" || ($0.value >= 0x20 && $0.value != 0x7F) }) else {
            throw UsageError("-H \(name): the value holds control characters", command: "fetch")
        }
        guard !reservedHeaders.contains(name.lowercased()) else {
            throw UsageError(
                "-H cannot set \(name): latchkey sets Authorization and DPoP from the profile's token",
                command: "fetch", hint: "use curl for a request with other credentials")
        }
        guard !transportHeaders.contains(name.lowercased()) else {
            throw UsageError(
                "-H cannot set \(name): the HTTP stack sets it (one request, identity encoding, close)",
                command: "fetch")
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
                command: "fetch")
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
