import Latchkey
import LatchkeyJOSE

/// `latchkey id-token` and `latchkey claims`/`whoami`: print what the last sign-in or refresh
/// stored after verifying it. No network.
enum StoredTokenCommands {
    /// The stored session; exit 3 when there is none.
    static func session(_ context: CommandContext) throws -> StoredSession {
        let access = ProfileAccess(context)
        let settings = try access.requireSettings()
        guard let session = try access.tokenStore(settings).loadTyped() else {
            throw CommandFailure.notSignedIn(profile: access.profile)
        }
        return session
    }

    static func noIDToken(_ context: CommandContext) -> CommandFailure {
        CommandFailure(exitCode: 3, code: "no_id_token",
                       message: "profile '\(context.globals.profile)' holds no ID token",
                       hint: "sign in again with the openid scope: `latchkey login --scope \"openid offline_access\"`")
    }

    /// `id-token`.
    static func idToken(_ context: CommandContext) throws -> Int32 {
        guard let idToken = try session(context).token.idToken else { throw noIDToken(context) }
        context.console.outLine(idToken)
        return 0
    }

    /// `claims` / `whoami`.
    static func claims(_ context: CommandContext) throws -> Int32 {
        let stored = try session(context)
        guard let text = stored.idTokenClaimsJSON else { throw noIDToken(context) }
        let value: JSONValue
        do { value = try JSONParser().parse(text) } catch {
            throw CommandFailure(exitCode: 9, code: "storage_error", message: "stored claims are not valid JSON: \(error)",
                                 hint: "run `latchkey login` again")
        }
        context.console.outLine(JSONOutput.text(value, console: context.console))
        return 0
    }
}
