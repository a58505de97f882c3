import Latchkey
import LatchkeyCrypto
import LatchkeyHTTP
import LatchkeyJOSE
import LatchkeyQR

/// `logout --end-session`: the OpenID Connect RP-Initiated Logout URL, printed, drawn as a QR code
/// for a phone, or emitted as `{"event":"end_session","url":…}` with `--json`.
enum EndSessionOutput {
    /// What to show once the local logout is done.
    enum Outcome {
        case url(HTTPURL)
        /// The provider has no `end_session_endpoint` (or the session could not be read).
        case unavailable(String)
    }

    /// Builds the request from the stored session's metadata, before the file is deleted.
    static func request(_ context: CommandContext, settings: ProfileSettings, store: any TokenStore) throws -> Outcome {
        guard let stored = try? store.load() else {
            return .unavailable("not signed in, so the provider's end_session_endpoint is not known")
        }
        guard let endpoint = stored.metadata.endSessionEndpoint, !endpoint.isEmpty else {
            return .unavailable("the provider's metadata has no end_session_endpoint; its session (if any) stays signed in")
        }
        var hint: String?
        if context.arguments.has(.idTokenHint) {
            guard let idToken = stored.token.idToken else {
                return .unavailable("--id-token-hint: the session holds no ID token")
            }
            hint = idToken
        }
        let random: SecureRandom
        do { random = try SecureRandom() } catch {
            throw CommandFailure(
                exitCode: 1, code: "internal_error", message: "the system random source failed: \(error)",
                hint: "check that getrandom(2) works in this environment")
        }
        let request = try EndSessionRequest(
            endpoint: endpoint, clientID: settings.client.clientID,
            postLogoutRedirectURI: settings.postLogoutRedirectURI, idTokenHint: hint,
            random: random)
        return .url(request.url)
    }

    static func show(_ outcome: Outcome, _ context: CommandContext) {
        switch outcome {
        case .unavailable(let why):
            context.console.warn(why)
        case .url(let url):
            if context.globals.json {
                context.console.out(
                    JSONValue.object(JSONObject([("event", .string("end_session")), ("url", .string(url.absoluteString))])).jsonText + "\n")
            }
            let args = context.arguments
            let wantsQR = args.has(.qr) && (!args.has(.noQR) || args.isLater(.qr, than: .noQR))
            let showQR = !context.console.quiet && (wantsQR || (context.console.stderrIsTTY && !args.has(.noQR)))
            var text = "To end your session at the provider, open:\n\n    " + TerminalText.singleLine(url.absoluteString) + "\n\n"
            if showQR, let code = try? QRCode(text: url.absoluteString) {
                text +=
                    "Or scan this QR code with your phone:\n\n"
                    + QRTerminalRenderer(quietZone: 4, colour: context.console.colour).render(code) + "\n"
            }
            // With --json the URL is on stdout already; stderr still gets the human text for the person.
            context.console.info(text)
        }
    }
}
