import Latchkey
import LatchkeyJOSE

/// `latchkey id-token` and `latchkey claims`/`whoami`: print what the last sign-in or refresh
/// stored after verifying it. No network.
enum StoredTokenCommands {
    /// The stored session; exit 3 when there is none.
    static func session(_ context: CommandContext) throws -> StoredSession {
        let access = ProfileAccess(context)
        let settings = try access.requireSettings()
        guard let session = try access.tokenStore(settings).load() else {
            throw CommandFailure.notSignedIn(profile: access.profile)
        }
        return session
    }

    /// Exit 3 for a session without an ID token, saying what is known: the provider issued none
    /// with these tokens. Whether signing in again can help depends on the granted scope: without
    /// `openid` it is needed; with it, a new sign-in changes nothing at a provider that issues ID
    /// tokens only on refresh (django-allauth on the device grant), so the hint is `refresh`.
    static func noIDToken(_ context: CommandContext, _ stored: StoredSession) -> CommandFailure {
        let profile = context.globals.profile
        let login = profile == "default" ? "latchkey login" : "latchkey --profile \(profile) login"
        let message = "profile '\(profile)' holds no ID token: the provider issued none with its tokens"
        // No `scope` in the token response means the requested scope was granted (RFC 6749 §5.1),
        // and latchkey requests openid by default, so only a scope list without it rules it out.
        let granted = stored.token.scope.map { $0.split(separator: " ").map(String.init) }
        let hint: String
        if let granted, !granted.contains("openid") {
            hint =
                "ID tokens need the openid scope, which this session was not granted: "
                + "`\(login) --scope \"openid offline_access\"`"
        } else if stored.token.refreshToken != nil {
            hint = "some providers issue an ID token only when the tokens are refreshed: try `latchkey refresh`"
        } else {
            hint = "there is no refresh token to try; ID tokens need the openid scope and a provider that issues them: `\(login)`"
        }
        return CommandFailure(exitCode: 3, code: "no_id_token", message: message, hint: hint)
    }

    /// `id-token`.
    static func idToken(_ context: CommandContext) throws -> Int32 {
        let stored = try session(context)
        guard let idToken = stored.token.idToken else { throw noIDToken(context, stored) }
        context.console.outLine(idToken)
        return 0
    }

    /// `claims` / `whoami`.
    static func claims(_ context: CommandContext) throws -> Int32 {
        let stored = try session(context)
        guard let text = stored.idTokenClaimsJSON else { throw noIDToken(context, stored) }
        let value: JSONValue
        do { value = try JSONParser().parse(text) } catch {
            throw CommandFailure(
                exitCode: 9, code: "storage_error", message: "stored claims are not valid JSON: \(error)",
                hint: "run `latchkey login` again")
        }
        context.console.outLine(JSONOutput.text(value, console: context.console))
        return 0
    }
}
