import Latchkey
import LatchkeyHTTP

/// `login --resource-url` and `fetch --sign-in`: a resource's metadata (RFC 9728) names the issuer
/// to sign in at, the resource indicator to ask for (RFC 8707) and the scopes it knows. The
/// library reads and checks the metadata; this decides what the command line becomes and words
/// the refusals (several issuers: the user chooses; none usable: exit 7).
enum ResourceSignIn {
    /// What a resource's metadata leads to.
    struct Target {
        /// The resource's metadata, checked against the URL.
        var metadata: ProtectedResourceMetadata
        /// The issuer as its own discovery document spells it.
        var issuer: String
    }

    /// The metadata of the resource behind `url`: at its well-known location, else named by the
    /// 401 a request without a token is answered with; nil when neither has any.
    static func metadata(for url: HTTPURL, transport: any HTTPTransport) async throws -> ProtectedResourceMetadata? {
        if let found = try await ProtectedResourceDiscovery.wellKnownMetadata(for: url, transport: transport) { return found }
        let probe = HTTPRequest(
            method: "GET", url: url, headers: [("Accept", "*/*")], maxRedirects: 0, timeout: ProtectedResourceDiscovery.timeout)
        let response: HTTPResponse
        do { response = try await transport.send(probe) } catch let e as HTTPError { throw LatchkeyError.network(e) }
        guard response.status == 401,
            let location = ResourceChallenge(wwwAuthenticate: response.header("WWW-Authenticate"))?.resourceMetadata
        else { return nil }
        return try await ProtectedResourceDiscovery.challengedMetadata(location, for: url, transport: transport)
    }

    /// The issuer to sign in at for `metadata`: the one it names, or the one of several `preferred`
    /// (`--issuer`) names; usage errors (exit 2) list the choices.
    static func issuer(of metadata: ProtectedResourceMetadata, preferred: String?, command: CommandName) throws -> String {
        let resource = TerminalText.singleLine(metadata.resource)
        switch metadata.authorizationServer(preferring: preferred) {
        case .chosen(let issuer): return issuer
        case .several(let named):
            throw UsageError(
                "the resource \(resource) names several authorization servers: \(list(named))", command: command,
                hint: "choose one with --issuer URL")
        case .notNamed(let issuer, let named):
            throw UsageError(
                "--issuer \(TerminalText.singleLine(issuer)) is not one the resource \(resource) names: \(list(named))", command: command)
        case .none:
            throw LatchkeyError.resourceMetadata(.noAuthorizationServer(resource: metadata.resource))
        }
    }

    /// The servers' names as one terminal-safe line.
    static func list(_ issuers: [String]) -> String { issuers.map(TerminalText.singleLine).joined(separator: ", ") }

    /// The target of `url`'s resource, its issuer spelt as the issuer's own metadata spells it.
    static func target(for url: HTTPURL, preferred: String?, transport: any HTTPTransport, command: CommandName) async throws -> Target {
        guard let metadata = try await metadata(for: url, transport: transport) else {
            throw CommandFailure(
                exitCode: 7, code: "resource_metadata_refused",
                message: "no resource metadata (RFC 9728) for \(TerminalText.singleLine(url.withoutQueryAndFragment))",
                hint: "log in with --issuer and --resource instead")
        }
        return try await target(metadata, preferred: preferred, transport: transport, command: command)
    }

    /// The target `metadata` leads to.
    static func target(_ metadata: ProtectedResourceMetadata, preferred: String?, transport: any HTTPTransport, command: CommandName)
        async throws -> Target
    {
        let named = try issuer(of: metadata, preferred: preferred, command: command)
        return Target(metadata: metadata, issuer: try await ProtectedResourceDiscovery.issuer(named: named, transport: transport))
    }

    /// `context` with the login options the target supplies: `--issuer`, `--resource` and, unless
    /// `--scope` was given, the metadata's `scopes_supported` with `openid`.
    static func applying(_ target: Target, to context: CommandContext) -> CommandContext {
        var args = context.arguments
        var order = 1_000_000
        func record(_ key: OptionKey, _ value: String) {
            order += 1
            args.record(key, value, order: order)
        }
        record(.issuer, target.issuer)
        record(.resource, target.metadata.resource)
        if !context.arguments.has(.scope), let scopes = target.metadata.scopesSupported, !scopes.isEmpty {
            let usable = scopes.filter { !$0.isEmpty && CharacterClass.isVisibleASCII($0) && !$0.contains(",") }
            record(.scope, (usable.contains("openid") ? usable : ["openid"] + usable).joined(separator: " "))
        }
        return CommandContext(arguments: args, globals: context.globals, environment: context.environment, console: context.console)
    }

    /// `login --resource-url URL`: the command line completed from the resource's metadata.
    static func resolving(_ context: CommandContext, resourceURL text: String, command: CommandName) async throws -> CommandContext {
        let url: HTTPURL
        do { url = try HTTPURL.parse(text) } catch {
            throw UsageError("--resource-url must be https (http only to loopback): \(error)", command: command)
        }
        guard url.fragment == nil else { throw UsageError("--resource-url cannot have a fragment", command: command) }
        let access = ProfileAccess(context)
        let transport = access.transport(settings: try access.profiles.load(access.profile))
        let found = try await target(for: url, preferred: context.arguments.string(.issuer), transport: transport, command: command)
        return applying(found, to: context)
    }
}
