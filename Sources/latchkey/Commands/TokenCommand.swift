import FoundationEssentials
import Latchkey
import LatchkeyJOSE

/// `latchkey token`: prints a valid access token. The hot path — a cached token that is still
/// valid for `--min-ttl` — reads two small files and prints; only a refresh builds the network
/// stack.
enum TokenCommand {
    static let formats = ["bare", "header", "json", "exec-credential"]

    static func run(_ context: CommandContext) async throws -> Int32 {
        let args = context.arguments
        let format = try args.choice("format", formats, default: context.globals.json ? "json" : "bare")
        let minTTL = Double(try args.nonNegativeInteger("min-ttl", default: 60))
        let force = args.has("force-refresh")
        let access = ProfileAccess(context)
        let settings = try access.requireSettings()
        let store = try access.tokenStore(settings)
        let token: Token
        let cached = try store.loadTyped()
        if !force, let cached, cached.token.isValid(at: Date(), minTTL: minTTL) {
            token = cached.token
        } else {
            guard cached != nil else { throw CommandFailure.notSignedIn(profile: access.profile) }
            let session = try access.session(settings, store: store)
            token = try await TerminationSignals.startWatching().run {
                try await session.validToken(minTTL: minTTL, forceRefresh: force)
            }
        }
        context.console.out(render(token, format: format))
        return 0
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
                ("scope", token.scope.map(JSONValue.string) ?? .null),
            ])
            return JSONValue.object(object).jsonText + "\n"
        case "exec-credential":
            var status = JSONObject([("token", .string(token.accessToken))])
            if let expiresAt = token.expiresAt { status["expirationTimestamp"] = .string(RFC3339.format(expiresAt)) }
            let object = JSONObject([
                ("apiVersion", .string("client.authentication.k8s.io/v1")),
                ("kind", .string("ExecCredential")),
                ("status", .object(status)),
            ])
            return JSONValue.object(object).jsonText + "\n"
        default:
            return token.accessToken + "\n"
        }
    }
}
